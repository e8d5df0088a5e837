/**
 * Which ban of the list (shell_ban_list.ts) applies to one command: by its name,
 * then, for commands banned only with certain arguments (global installs, rsync to
 * a remote host, `rm -r /`, …), by its arguments. An argument known only at run
 * time counts against the command where it could be the banned one.
 */
import type { ShellCommand } from "./types.ts";
import { type BanEntry, type BanGroup, banGroup, bannedName } from "./shell_ban_list.ts";

const words = (list: string): string[] => list.split(" ");

/** The name policies compare: basename, lower case (case-insensitive file systems), no `.exe`. */
export function commandName(argv0: string): string {
  return argv0.slice(argv0.lastIndexOf("/") + 1).toLowerCase().replace(/\.exe$/, "");
}

/** The ban that applies to one command, with the words that triggered it. */
export function banOf(cmd: ShellCommand): { entry: BanEntry; what: string } | undefined {
  const argv0 = cmd.argv[0] ?? "";
  if (/^\/dev\/(tcp|udp)\//.test(argv0)) return { entry: banGroup("network"), what: argv0 };
  const name = commandName(argv0);
  const byName = bannedName(name);
  if (byName) return { entry: byName, what: name };
  const args = cmd.argv.slice(1);
  const dynamic = new Set((cmd.dynamic_args ?? []).map((i) => i - 1));
  for (const rule of ARG_RULES) {
    if (!rule.names.test(name)) continue;
    const what = rule.test(args, dynamic);
    if (what) return { entry: banGroup(rule.group), what: `${name} ${what}` };
  }
  return undefined;
}

interface ArgRule {
  group: BanGroup;
  names: RegExp;
  /** Returns the offending words, or undefined when the arguments are fine. */
  test(args: string[], dynamic: Set<number>): string | undefined;
}

const GLOBAL_FLAGS = new Set(["-g", "--global", "--global=true", "--location=global"]);
const isGlobal = (args: string[]) =>
  args.some((a, i) => GLOBAL_FLAGS.has(a) || (a === "--location" && args[i + 1] === "global"));
const positionals = (args: string[]) => args.filter((a) => !a.startsWith("-"));

/** `tool SUB … -g` style: a modifying subcommand with a global flag (or an unknown argument). */
function globalSub(subs: string[], extra?: (args: string[]) => string | undefined) {
  const set = new Set(subs);
  return (args: string[], dynamic: Set<number>): string | undefined => {
    const sub = args.find((a, i) => set.has(a) && !dynamic.has(i));
    if (sub === undefined) return extra?.(args);
    if (isGlobal(args)) {
      return `${sub} ${args.find((a) => GLOBAL_FLAGS.has(a)) ?? "--location global"}`;
    }
    if (dynamic.size > 0) return `${sub} with an argument known only at run time`;
    return extra?.(args);
  };
}

const NPM_SUBS = words(
  "install i in ins inst insta instal isnt isnta isntal isntall add update up upgrade " +
    "udpate uninstall unlink un remove rm r link ln",
);

/** `tool SUB` where SUB is always global (cargo install, go install …). */
function firstPositional(subs: string[], prefix: string[] = []) {
  return (args: string[]): string | undefined => {
    const pos = positionals(args);
    if (!prefix.every((p, i) => pos[i] === p)) return undefined;
    const sub = pos[prefix.length];
    return sub !== undefined && subs.includes(sub) ? [...prefix, sub].join(" ") : undefined;
  };
}

const PIP_UNSAFE = ["--user", "--break-system-packages", "--prefix", "--root", "--system"];
function pipInstall(args: string[], dynamic: Set<number>): string | undefined {
  const i = args.indexOf("install");
  if (i < 0) return undefined;
  const flag = args.find((a) => PIP_UNSAFE.some((f) => a === f || a.startsWith(`${f}=`)));
  if (flag) return `install ${flag}`;
  return dynamic.size > 0 ? "install with an argument known only at run time" : undefined;
}

const REMOTE = /^(rsync:\/\/|[^/.-][^/]*:)/;
const ROOTS = new Set(words(
  "/ /* /. /.. ~ ~/ ~/* $HOME $HOME/ $HOME/* ${HOME} ${HOME}/ ${HOME}/*",
));
const SAFE_DEVICES = /^\/dev\/(null|zero|stdout|stderr|fd\/\d+)$/;

const ARG_RULES: readonly ArgRule[] = [
  {
    group: "global_install",
    names: /^(npm|cnpm)$/,
    test: globalSub(NPM_SUBS, (args) => {
      const pos = positionals(args);
      return pos.length === 1 && (pos[0] === "link" || pos[0] === "ln") ? pos[0] : undefined;
    }),
  },
  {
    group: "global_install",
    names: /^pnpm$/,
    test: globalSub([
      "add",
      "install",
      "i",
      "update",
      "up",
      "upgrade",
      "remove",
      "rm",
      "uninstall",
      "un",
      "link",
      "ln",
    ]),
  },
  {
    group: "global_install",
    names: /^bun$/,
    test: globalSub(["add", "install", "i", "remove", "rm", "update", "link"]),
  },
  { group: "global_install", names: /^deno$/, test: globalSub(["install", "i", "uninstall"]) },
  { group: "global_install", names: /^yarn$/, test: firstPositional(["global"]) },
  { group: "global_install", names: /^(cargo|gem)$/, test: firstPositional(["install"]) },
  { group: "global_install", names: /^go$/, test: firstPositional(["install"]) },
  {
    group: "global_install",
    names: /^pipx$/,
    test: firstPositional(["install", "inject", "reinstall-all"]),
  },
  { group: "global_install", names: /^uv$/, test: firstPositional(["install"], ["tool"]) },
  { group: "global_install", names: /^pip[0-9.]*$/, test: pipInstall },
  {
    group: "global_install",
    names: /^(python[0-9.]*|uv)$/,
    test: (args, dynamic) => {
      const m = args.findIndex((a, i) => a === "pip" && (args[i - 1] === "-m" || i === 0));
      return m < 0
        ? undefined
        : pipInstall(args.slice(m + 1), new Set([...dynamic].map((i) => i - m - 1)));
    },
  },
  {
    group: "network",
    names: /^rsync$/,
    test: (args) => args.find((a) => REMOTE.test(a) || a === "-e" || a.startsWith("--rsh")),
  },
  {
    group: "network",
    names: /^openssl$/,
    test: firstPositional(["s_client", "s_server", "s_time"]),
  },
  {
    group: "system",
    names: /^dd$/,
    test: (args) => args.find((a) => a.startsWith("of=/dev/") && !SAFE_DEVICES.test(a.slice(3))),
  },
  {
    group: "system",
    names: /^rm$/,
    test: (args) => {
      if (args.includes("--no-preserve-root")) return "--no-preserve-root";
      const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === "--recursive");
      const root = args.find((a) => ROOTS.has(a));
      return recursive && root ? `-r ${root}` : undefined;
    },
  },
  {
    group: "system",
    names: /^kill$/,
    test: (args) => (args.indexOf("-1", 1) > 0 ? "-1" : undefined),
  },
];
