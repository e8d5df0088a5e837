/**
 * The argument-dependent part of the ban list: commands banned only with certain
 * arguments, each rule written against what the command means (command_shapes.ts)
 * rather than one spelling of it. Global installs in every spelling the tools accept
 * (`npm i -g`, `npm -g i`, `npm isntall --glob`, `deno install -gA`, `cargo +nightly
 * install`, `python3 -mpip install --user`, `gem i`, and the same through the
 * environment: `npm_config_global=true npm i`, `PIP_USER=1 pip install`), remote
 * rsync, openssl's clients, `dd` onto a device, recursive deletes of the root, a home
 * folder or what lies above the working folder, and `kill -1`.
 */
import type { BanGroup } from "./shell_ban_list.ts";
import { shapeOf } from "./command_shapes.ts";
import { type CwdCandidates, protectedPath } from "./shell_ban_paths.ts";

/** What a rule sees of one command. */
export interface BanInput {
  argv: readonly string[];
  /** Indexes into argv of words known only at run time. */
  dynamic: ReadonlySet<number>;
  /** Arguments are added at run time (xargs). */
  appended: boolean;
  /** Every variable the script sets (its environment as far as the script says). */
  env: ReadonlyMap<string, string>;
  cwds: CwdCandidates;
}

export interface ArgRule {
  group: BanGroup;
  names: RegExp;
  /** The offending words, or undefined when the command is fine. */
  test(input: BanInput): string | undefined;
}

const UNKNOWN = "with an argument known only at run time";
const truthy = (v: string | undefined) =>
  v !== undefined && !/^(|0|false|no|off)$/i.test(v.replace(/^["']|["']$/g, ""));
const envValue = (env: ReadonlyMap<string, string>, name: string) => {
  for (const [k, v] of env) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
};

/**
 * npm-style global flags: `-g` (also in a cluster), `--global` and its prefixes
 * (`--glob`), `--global=<true>`, `--location[=| ]global` and its prefixes.
 */
function globalFlag(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (/^-[A-Za-z]*g[A-Za-z]*$/.test(a)) return a;
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) continue;
    const [, name, value] = m;
    if (name.length >= 2 && "global".startsWith(name) && (value === undefined || truthy(value))) {
      return a;
    }
    if (name.length >= 3 && "location".startsWith(name)) {
      if ((value ?? argv[i + 1]) === "global") return value ? a : `${a} global`;
    }
  }
  return undefined;
}

/** `tool SUB … -g`: a modifying subcommand with a global flag, setting, or unknown argument. */
function globalSub(subs: readonly string[], configVar?: string) {
  return ({ argv, dynamic, env }: BanInput): string | undefined => {
    const sub = shapeOf(argv).positionals[0];
    if (sub === undefined || !subs.includes(sub)) {
      // `npm $CMD -g`: the subcommand itself is unknown.
      return dynamic.size > 0 && globalFlag(argv)
        ? `${UNKNOWN} and ${globalFlag(argv)}`
        : undefined;
    }
    const flag = globalFlag(argv);
    if (flag) return `${sub} ${flag}`;
    if (configVar) {
      if (truthy(envValue(env, `${configVar}_global`))) {
        return `${sub} with ${configVar}_global set`;
      }
      if (envValue(env, `${configVar}_location`)?.includes("global")) {
        return `${sub} with ${configVar}_location=global`;
      }
    }
    if (dynamic.size > 0) return `${sub} ${UNKNOWN}`;
    return undefined;
  };
}

/** `tool SUB` where SUB always changes the machine (cargo install, go install, …). */
function subcommand(subs: readonly string[], prefix: readonly string[] = []) {
  return ({ argv }: BanInput): string | undefined => {
    const pos = shapeOf(argv).positionals;
    if (!prefix.every((p, i) => pos[i] === p)) return undefined;
    const sub = pos[prefix.length];
    return sub !== undefined && subs.includes(sub) ? [...prefix, sub].join(" ") : undefined;
  };
}

/** pip options that install outside the project, with the prefixes pip's parser accepts. */
const PIP_UNSAFE: Array<[string, number]> = [
  ["--user", 6],
  ["--break-system-packages", 4],
  ["--prefix", 6],
  ["--root", 6],
  ["--system", 5],
  ["--target", 5],
];
const PIP_ENV = ["PIP_USER", "PIP_BREAK_SYSTEM_PACKAGES", "PIP_PREFIX", "PIP_ROOT", "PIP_TARGET"];

function pipInstall(args: readonly string[], input: BanInput, offset: number): string | undefined {
  const i = args.indexOf("install");
  if (i < 0) return undefined;
  for (const a of args) {
    const name = a.split("=")[0];
    const hit = PIP_UNSAFE.find(([flag, min]) => name.length >= min && flag.startsWith(name));
    if (hit && name.startsWith("--")) return `install ${a}`;
    if (a === "-t" || /^-t./.test(a)) return `install ${a}`;
  }
  const set = PIP_ENV.find((v) => truthy(envValue(input.env, v)));
  if (set) return `install with ${set} set`;
  const dynamicHere = [...input.dynamic].some((d) => d >= offset);
  return dynamicHere ? `install ${UNKNOWN}` : undefined;
}

/** The module `python -m` runs (`-m pip`, `-mpip`, `-Im pip`), and the index after it. */
function pythonModule(argv: readonly string[]): { module: string; next: number } | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("-") || a === "-" || a === "--") return undefined;
    for (let k = 1; k < a.length; k++) {
      const c = a[k];
      if (c === "-") break; // a long option (`--version`)
      if ("cWXQ".includes(c)) {
        if (c === "c") return undefined; // a program follows, not a module
        if (k === a.length - 1) i++;
        break;
      }
      if (c === "m") {
        const rest = a.slice(k + 1);
        return rest ? { module: rest, next: i + 1 } : { module: argv[i + 1] ?? "", next: i + 2 };
      }
    }
  }
  return undefined;
}

const RSYNC_REMOTE = /^(rsync:\/\/|[^/.-][^/]*:)/;
const SAFE_DEVICES = /^\/dev\/(null|zero|stdout|stderr|fd\/\d+)$/;

/** `rm -r` (any spelling) on a protected path, or with paths added at run time. */
function recursiveDelete(input: BanInput): string | undefined {
  const shape = shapeOf(input.argv);
  if (shape.options.has("--no-preserve-root")) return "--no-preserve-root";
  if (!shape.options.has("-r")) return undefined;
  if (input.appended) return "-r with paths added at run time";
  return protectedWords(input, 1, (a) => a.startsWith("-"));
}

/** The first argument from `from` on that is a protected path. */
function protectedWords(
  input: BanInput,
  from: number,
  isOption: (a: string) => boolean,
): string | undefined {
  let dashes = false;
  for (let i = from; i < input.argv.length; i++) {
    const a = input.argv[i];
    if (!dashes && a === "--") {
      dashes = true;
      continue;
    }
    if (!dashes && isOption(a)) continue;
    const why = protectedPath({ value: a, dynamic: input.dynamic.has(i) }, input.cwds);
    if (why) return `-r ${why}`;
  }
  return undefined;
}

/** `find / -delete`, `find ~ -exec rm -rf {} +`: a delete below a protected start path. */
function findDelete(input: BanInput): string | undefined {
  const { argv } = input;
  const deletes = argv.some((a, i) =>
    a === "-delete" ||
    (/^-(exec|execdir|ok|okdir)$/.test(a) && /(^|\/)(rm|rmdir|shred)$/.test(argv[i + 1] ?? ""))
  );
  if (!deletes) return undefined;
  // find [-H|-L|-P] [-D opts] [-Olevel] START… EXPRESSION
  let i = 1;
  while (i < argv.length && /^-([HLP]|O\d*|D)$/.test(argv[i])) i += argv[i] === "-D" ? 2 : 1;
  let end = i;
  while (end < argv.length && !/^[-(!)]/.test(argv[end])) end++;
  const starts = { ...input, argv: ["find", ...argv.slice(i, end)] };
  const dynamic = new Set([...input.dynamic].map((d) => d - i + 1));
  return protectedWords({ ...starts, dynamic }, 1, () => false)?.replace(/^-r /, "-delete ");
}

const PM_SUBS = ["install", "add", "update", "remove", "uninstall", "link", "i", "rm", "un", "up"];

export const ARG_RULES: readonly ArgRule[] = [
  {
    group: "global_install",
    names: /^(npm|cnpm)$/,
    test: (input) => {
      const found = globalSub(["install", "uninstall", "update", "link"], "npm_config")(input);
      if (found) return found;
      const shape = shapeOf(input.argv);
      // A bare `npm link` links the package into the global folder.
      return shape.positionals.length === 1 && shape.positionals[0] === "link" ? "link" : undefined;
    },
  },
  { group: "global_install", names: /^pnpm$/, test: globalSub([...PM_SUBS, "upgrade", "ln"]) },
  { group: "global_install", names: /^bun$/, test: globalSub(PM_SUBS) },
  {
    group: "global_install",
    names: /^deno$/,
    test: globalSub(["install", "i", "uninstall", "add"]),
  },
  { group: "global_install", names: /^yarn$/, test: subcommand(["global"]) },
  { group: "global_install", names: /^cargo$/, test: subcommand(["install", "uninstall"]) },
  { group: "global_install", names: /^go$/, test: subcommand(["install"]) },
  { group: "global_install", names: /^gem$/, test: subcommand(["install", "update", "uninstall"]) },
  {
    group: "global_install",
    names: /^corepack$/,
    test: subcommand(["enable", "disable", "install"]),
  },
  {
    group: "global_install",
    names: /^pipx$/,
    test: subcommand(["install", "inject", "reinstall-all", "upgrade", "upgrade-all", "uninstall"]),
  },
  { group: "global_install", names: /^uv$/, test: subcommand(["install"], ["tool"]) },
  {
    group: "global_install",
    names: /^rustup$/,
    test: (input) =>
      subcommand(["install", "update", "uninstall", "default", "self", "set"])(input) ??
        subcommand(["install", "uninstall", "link"], ["toolchain"])(input) ??
        subcommand(["add", "remove"], ["component"])(input) ??
        subcommand(["add", "remove"], ["target"])(input),
  },
  {
    group: "global_install",
    names: /^pip[0-9.]*$/,
    test: (input) => pipInstall(input.argv.slice(1), input, 1),
  },
  {
    group: "global_install",
    names: /^(python[0-9.]*|py|pypy[0-9.]*|uv)$/,
    test: (input) => {
      const { argv } = input;
      if (argv[1] === "pip") return pipInstall(argv.slice(2), input, 2);
      const m = pythonModule(argv);
      if (!m || !/^pip[0-9.]*$/.test(m.module)) return undefined;
      return pipInstall(argv.slice(m.next), input, m.next);
    },
  },
  {
    group: "network",
    names: /^rsync$/,
    test: ({ argv }) =>
      argv.slice(1).find((a) => RSYNC_REMOTE.test(a) || a === "-e" || a.startsWith("--rsh")),
  },
  {
    group: "network",
    names: /^openssl$/,
    test: subcommand(["s_client", "s_server", "s_time"]),
  },
  {
    group: "system",
    names: /^dd$/,
    test: ({ argv }) =>
      argv.slice(1).find((a) => a.startsWith("of=/dev/") && !SAFE_DEVICES.test(a.slice(3))),
  },
  { group: "system", names: /^rm$/, test: recursiveDelete },
  { group: "system", names: /^find$/, test: findDelete },
  {
    group: "system",
    names: /^kill$/,
    test: (
      { argv },
    ) => (argv.indexOf("-1", 2) > 0 || (argv[1] === "--" && argv.includes("-1"))
      ? "-1"
      : undefined),
  },
];
