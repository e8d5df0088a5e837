/**
 * Commands that run other commands. The shell policy looks through them, so that
 * `timeout 5 curl …`, `xargs curl`, `find -exec curl {} ;` or `sudo bash -c 'curl …'`
 * are judged by the command that really runs. Each entry knows the wrapper's
 * options (which ones take a value) well enough to find where the inner command
 * or the inner script starts; what a wrapper cannot tell statically is left to
 * the caller to treat as dynamic.
 */
import type { ResolvedWord } from "./words.ts";
import {
  has,
  joinWords,
  literal,
  passThrough,
  type Peeled,
  runsCommands,
  runsScripts,
  scanOptions,
  scriptOption,
} from "./wrapper_args.ts";

const words = (list: string): string[] => list.split(" ");

const STDIN_PATHS = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

function shell(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, {
    short: "oO",
    long: ["--rcfile", "--init-file"],
    plus: true,
  });
  const withC = has(scan, "-c");
  const operand = args[scan.next];
  if (withC) {
    // `bash -c` with no string: the script comes from xargs or similar, unknown here.
    return runsScripts([operand ?? { value: "", static: false, expands: false, text: "" }]);
  }
  if (!operand || has(scan, "-s") || (operand.static && STDIN_PATHS.has(operand.value))) {
    return { keepSelf: true, commands: [], scripts: [], readsStdin: true };
  }
  // A script file: its content is not seen by the policy (see README, shell policy).
  return runsCommands([], true);
}

function env(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, {
    short: "uCSP",
    long: ["--unset", "--chdir", "--split-string"],
  });
  let i = scan.next;
  // `NAME=value` operands, also quoted (`env "PS4=…" cmd`): env splits them at run time.
  while (i < args.length && /^[^=]+=/.test(args[i].value) && !args[i].value.startsWith("-")) i++;
  const assigns = args.slice(scan.next, i);
  const split = scan.seen.get("-S") ?? scan.seen.get("--split-string");
  if (split !== undefined) {
    return { ...runsScripts([joinWords([split, ...args.slice(i)])]), assigns };
  }
  return { ...runsCommands([args.slice(i)]), assigns };
}

function xargs(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, {
    short: "adEILnPs",
    long: words(
      "--arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var",
    ),
  });
  const replace = scan.seen.get("-I") ?? scan.seen.get("--replace");
  const placeholder = replace?.value ?? (has(scan, "-i", "--replace") ? "{}" : undefined);
  return { ...runsCommands([args.slice(scan.next)]), placeholder, appends: true };
}

function find(args: ResolvedWord[]): Peeled {
  const commands: ResolvedWord[][] = [];
  for (let i = 1; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i].value)) continue;
    const start = i + 1;
    let end = start;
    while (
      end < args.length &&
      !(args[end].static && (args[end].value === ";" || args[end].value === "+"))
    ) end++;
    commands.push(args.slice(start, end));
    i = end;
  }
  return { ...runsCommands(commands, true), placeholder: "{}" };
}

function watch(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, { short: "nq", long: ["--interval"] });
  const rest = args.slice(scan.next);
  if (has(scan, "-x", "--exec")) return runsCommands([rest]);
  return runsScripts(rest.length ? [joinWords(rest)] : []);
}

function parallel(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, {
    short: "jNSadEILPsC",
    long: words(
      "--jobs --sshlogin --arg-file --delimiter --colsep --joblog --results --tmpdir --timeout --workdir --wd --env --halt --retries --delay",
    ),
  });
  const rest = args.slice(scan.next);
  const sep = rest.findIndex((w) => /^::::?\+?$/.test(w.value));
  const command = sep < 0 ? rest : rest.slice(0, sep);
  // Without a command, each argument after ::: is itself run as a command line.
  const scripts = command.length ? [joinWords(command)] : rest.slice(sep + 1);
  return { ...runsScripts(scripts), placeholder: "{", appends: true };
}

function flock(args: ResolvedWord[]): Peeled {
  const spec = { short: "wEc", long: ["--timeout", "--conflict-exit-code", "--command"] };
  const scan = scanOptions(args, 1, spec);
  // `flock [options] FILE -c COMMAND`: options may also follow the lock file.
  const after = scanOptions(args, scan.next + 1, spec);
  for (const s of [scan, after]) {
    if (has(s, "-c", "--command")) {
      return runsScripts([s.seen.get("-c") ?? s.seen.get("--command") ?? literal("")]);
    }
  }
  return runsCommands([args.slice(after.next)]);
}

function sourceFile(args: ResolvedWord[]): Peeled {
  const file = args[1];
  const peeled = runsCommands([], true);
  if (file?.static && STDIN_PATHS.has(file.value)) peeled.readsStdin = true;
  return peeled;
}

function trap(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, {});
  const action = args[scan.next];
  const signals = args.length - scan.next - 1;
  if (!action || signals < 1 || (action.static && (action.value === "-" || action.value === ""))) {
    return runsCommands([]);
  }
  return runsScripts([action]);
}

function alias(args: ResolvedWord[]): Peeled {
  const scripts: ResolvedWord[] = [];
  for (const a of args.slice(1)) {
    const eq = a.value.indexOf("=");
    if (a.static && eq < 0) continue; // `alias name` only prints.
    scripts.push(a.static ? { ...a, value: a.value.slice(eq + 1) } : a);
  }
  return runsScripts(scripts);
}

/** `hash -p /usr/bin/curl ls` makes `ls` run curl: the path is what runs. */
function hash(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, { short: "p" });
  const path = scan.seen.get("-p");
  return path ? runsCommands([[path]]) : runsCommands([], true);
}

/** `enable -f lib.so name` loads a builtin from a shared library: code the policy cannot see. */
function enable(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, { short: "f" });
  const lib = scan.seen.get("-f");
  return lib ? runsScripts([{ ...lib, static: false }]) : runsCommands([], true);
}

/** `mapfile -C CALLBACK` and `compgen -C COMMAND` run their option's value as code. */
function callback(short: string) {
  return (args: ResolvedWord[]): Peeled => {
    const scan = scanOptions(args, 1, { short });
    const code = scan.seen.get("-C");
    return code ? runsScripts([code], true) : runsCommands([], true);
  };
}

/**
 * `npx [options] PKG[@version] ARGS…` runs the package's program (`npx npm@latest
 * install` is npm); `-c`/`--call` runs a script. npx itself is reported too.
 */
function npx(args: ResolvedWord[]): Peeled {
  const scan = scanOptions(args, 1, { short: "pc", long: ["--package", "--call"] });
  const script = scan.seen.get("-c") ?? scan.seen.get("--call");
  if (script) return runsScripts([script], true);
  const pkg = args[scan.next];
  if (!pkg) return runsCommands([], true);
  const name = pkg.static ? pkg.value.replace(/^(@[^/]+\/)?([^@]+).*$/, "$2") : pkg.value;
  return runsCommands([[{ ...pkg, value: name }, ...args.slice(scan.next + 1)]], true);
}

type Handler = (args: ResolvedWord[]) => Peeled;

const SHELLS = words("bash sh zsh dash ksh mksh ash rbash yash posh fish tcsh csh");

const HANDLERS: Record<string, Handler> = {
  env,
  xargs,
  find,
  watch,
  parallel,
  flock,
  trap,
  alias,
  hash,
  enable,
  eval: (args) => runsScripts(args.length > 1 ? [joinWords(args.slice(1))] : []),
  command: (args) => {
    const scan = scanOptions(args, 1, {});
    // `command -v X` only looks X up.
    return has(scan, "-v", "-V") ? runsCommands([], true) : runsCommands([args.slice(scan.next)]);
  },
  builtin: passThrough({}),
  exec: passThrough({ short: "a" }),
  nohup: passThrough({}),
  time: passThrough({ short: "fo", long: ["--format", "--output"] }),
  timeout: passThrough({ short: "sk", long: ["--signal", "--kill-after"] }, 1),
  nice: passThrough({ short: "n", long: ["--adjustment"] }),
  ionice: passThrough({
    short: "cnpPu",
    long: ["--class", "--classdata", "--pid", "--pgid", "--uid"],
  }),
  stdbuf: passThrough({ short: "ioe", long: ["--input", "--output", "--error"] }),
  setsid: passThrough({}),
  taskset: passThrough({}, 1),
  chrt: passThrough({}, 1),
  unbuffer: passThrough({}),
  busybox: (args) => runsCommands([args.slice(1)]),
  toybox: (args) => runsCommands([args.slice(1)]),
  sudo: passThrough(
    {
      short: "ugCDhprtTU",
      long: words(
        "--user --group --close-from --chdir --host --prompt --role --type --command-timeout --other-user",
      ),
    },
    0,
    true,
  ),
  doas: passThrough({ short: "uC" }, 0, true),
  pkexec: passThrough({ long: ["--user"] }, 0, true),
  run0: passThrough({ short: "ugD", long: ["--user", "--group", "--chdir"] }, 0, true),
  chroot: passThrough({ long: ["--userspec", "--groups"] }, 1, true),
  nsenter: passThrough({ short: "tSG", long: ["--target", "--setuid", "--setgid"] }, 0, true),
  unshare: passThrough({ short: "S", long: ["--setuid", "--setgid"] }),
  su: scriptOption(
    {
      short: "csgGw",
      long: ["--command", "--session-command", "--shell", "--group", "--supp-group"],
    },
    ["-c", "--command", "--session-command"],
    true,
  ),
  script: scriptOption(
    {
      short: "cEIOBTm",
      long: ["--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing"],
    },
    ["-c", "--command"],
    false,
  ),
  source: sourceFile,
  ".": sourceFile,
  npx,
  bunx: npx,
  mapfile: callback("dnOsuCc"),
  readarray: callback("dnOsuCc"),
  compgen: callback("AGWFCXPSo"),
};
for (const s of SHELLS) HANDLERS[s] = shell;

/** What `args` runs, when its name is a known wrapper; undefined for ordinary commands. */
export function peelWrapper(name: string, args: ResolvedWord[]): Peeled | undefined {
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!handler) return undefined;
  const peeled = handler(args);
  // A wrapper with nothing to run (`env`, `nohup`) is reported as itself.
  if (!peeled.keepSelf && peeled.commands.length === 0 && peeled.scripts.length === 0) {
    peeled.keepSelf = true;
  }
  return peeled;
}
