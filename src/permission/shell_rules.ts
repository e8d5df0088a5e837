/**
 * The shell policy applied to the commands the bash tool found in a script
 * (src/tools/shell/parse.ts): a built-in ban list that no profile can lift, then a
 * profile's `bash.deny` and `bash.allow` patterns. Order of checks:
 *   unparsable script → dynamic command name → ban list → deny patterns → allow patterns.
 * The ban list is defence in depth for unattended runs, not a sandbox: a program the
 * model writes itself (a script file, `python -c`) is not looked into.
 */
import type { Decision, ShellAccess, ShellCommand } from "./types.ts";

export type BanGroup =
  | "network"
  | "privilege"
  | "system_packages"
  | "global_install"
  | "system";

export interface BanEntry {
  group: BanGroup;
  /** Why the group is banned, for the README and denial messages. */
  why: string;
  /** Command names banned whatever their arguments (compared by basename, case-insensitive). */
  commands: readonly string[];
  /** Commands banned only with certain arguments, described for people. */
  when: readonly string[];
}

const words = (list: string): string[] => list.split(" ");

export const BAN_LIST: readonly BanEntry[] = [
  {
    group: "network",
    why: "network clients can download code or send workspace data anywhere; " +
      "use the fetch tool, whose hosts the profile controls",
    commands: words(
      "curl curlie wget wget2 aria2c axel http https httpie http-prompt xh xhs lynx w3m " +
        "links links2 elinks nc ncat netcat socat telnet ssh scp sftp ftp lftp tftp sshpass " +
        "ssh-copy-id mosh autossh nmap chrome chromium chromium-browser google-chrome firefox " +
        "safari xdg-open sensible-browser x-www-browser www-browser",
    ),
    when: [
      "rsync to or from a remote host",
      "openssl s_client / s_server",
      "redirection to /dev/tcp or /dev/udp",
    ],
  },
  {
    group: "privilege",
    why: "raising privileges or changing users lets a run step outside what its user may do",
    commands: words(
      "sudo su doas pkexec run0 chroot nsenter useradd userdel usermod groupadd groupdel " +
        "passwd chpasswd visudo setcap",
    ),
    when: [],
  },
  {
    group: "system_packages",
    why: "system package managers change the machine, not the project, and need the network",
    commands: words(
      "apt apt-get aptitude apt-cache dpkg rpm yum dnf microdnf zypper pacman paru yay " +
        "makepkg apk emerge portage opkg pkg pkg_add pkg_delete port brew snap flatpak " +
        "nix-env nix-channel home-manager xbps-install swupd eopkg slackpkg",
    ),
    when: [],
  },
  {
    group: "global_install",
    why: "global installs change every project on the machine; install into the project instead",
    commands: [],
    when: [
      "npm/pnpm/bun install|add|update|remove|link with -g/--global (and a bare `npm link`)",
      "yarn global …",
      "deno install|uninstall -g/--global",
      "cargo install, go install, gem install, pipx install, uv tool install",
      "pip install --user/--break-system-packages/--prefix/--root/--system (also python -m pip, uv pip)",
      "any of the above subcommands with an argument known only at run time",
    ],
  },
  {
    group: "system",
    why: "these stop, reconfigure or wipe the machine rather than build or test code",
    commands: words(
      "shutdown reboot halt poweroff telinit systemctl service chkconfig update-rc.d " +
        "crontab at batch mkfs mke2fs mkswap fdisk sfdisk gdisk parted wipefs mount umount " +
        "swapon swapoff insmod rmmod modprobe ip ifconfig route iptables ip6tables nft ufw " +
        "firewall-cmd pfctl",
    ),
    when: ["mkfs.*", "dd of=/dev/…", "rm -r on /, ~ or $HOME", "kill … -1 (every process)"],
  },
];

const BANNED_NAMES = new Map<string, BanEntry>(
  BAN_LIST.flatMap((e) => e.commands.map((c) => [c, e] as const)),
);
const entry = (group: BanGroup) => BAN_LIST.find((e) => e.group === group)!;

export interface ShellRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

/**
 * Builtins that run no program; a profile's `bash.allow` does not need to list
 * them (`cd src && npm test` is allowed by "npm test"). Deny patterns still apply.
 */
const NEUTRAL = new Set(words(
  "cd pushd popd dirs pwd echo printf true false : test [ exit return shift set unset " +
    "wait sleep read type",
));

export function checkShell(access: ShellAccess, rules: ShellRules = {}): Decision {
  if (access.parse_error !== undefined) {
    return deny(
      "bash.parse",
      `the command could not be parsed (${access.parse_error}), so it cannot be checked`,
    );
  }
  for (const cmd of access.commands) {
    if (cmd.dynamic) {
      return deny(
        "bash.dynamic",
        `the command name in \`${cmd.text}\` is only known at run time (${cmd.argv[0] ?? ""}); ` +
          "write the command name literally",
      );
    }
  }
  for (const cmd of access.commands) {
    const ban = banOf(cmd);
    if (ban) {
      return deny(
        `ban:${ban.entry.group}`,
        `\`${ban.what}\` is banned (${ban.entry.why}); in \`${cmd.text}\``,
      );
    }
  }
  for (const pattern of rules.deny ?? []) {
    const cmd = access.commands.find((c) => matchesPattern(pattern, c.argv, true));
    if (cmd) {
      return deny(`bash.deny:${pattern}`, `\`${cmd.text}\` matches the deny pattern "${pattern}"`);
    }
  }
  if (rules.allow !== undefined) {
    for (const cmd of access.commands) {
      if (NEUTRAL.has(cmd.argv[0])) continue;
      if (rules.allow.some((p) => matchesPattern(p, cmd.argv, false))) continue;
      const list = rules.allow.length ? rules.allow.map((p) => `"${p}"`).join(", ") : "none";
      return deny(
        "bash.allow",
        `\`${cmd.text}\` matches no allowed command pattern (allowed: ${list})`,
      );
    }
  }
  return { allow: true };
}

function deny(rule: string, reason: string): Decision {
  return { allow: false, rule, reason };
}

/** Basename, lower case (case-insensitive file systems), without `.exe`. */
export function commandName(argv0: string): string {
  return argv0.slice(argv0.lastIndexOf("/") + 1).toLowerCase().replace(/\.exe$/, "");
}

/** The ban that applies to one command, with the words that triggered it. */
export function banOf(cmd: ShellCommand): { entry: BanEntry; what: string } | undefined {
  const argv0 = cmd.argv[0] ?? "";
  if (/^\/dev\/(tcp|udp)\//.test(argv0)) return { entry: entry("network"), what: argv0 };
  const name = commandName(argv0);
  const byName = BANNED_NAMES.get(name) ?? (/^mkfs\./.test(name) ? entry("system") : undefined);
  if (byName) return { entry: byName, what: name };
  const args = cmd.argv.slice(1);
  const dynamic = new Set((cmd.dynamic_args ?? []).map((i) => i - 1));
  for (const rule of ARG_RULES) {
    if (!rule.names.test(name)) continue;
    const what = rule.test(args, dynamic);
    if (what) return { entry: entry(rule.group), what: `${name} ${what}` };
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

/**
 * A `bash.allow`/`bash.deny` pattern against one command. Patterns are prefixes of
 * the command's words: "npm test" matches `npm test --watch`; `*` and `?` are globs
 * inside a word ("npm run lint*" matches `npm run lint:fix`); a trailing `*` word
 * or `:*` also matches no further words; "*" alone matches everything. Deny
 * patterns also match the command's basename (`/usr/bin/git push` is `git push`).
 */
export function matchesPattern(
  pattern: string,
  argv: readonly string[],
  byBasename: boolean,
): boolean {
  const tokens = pattern.trim().replace(/:\*$/, "").split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return false;
  if (tokens.length === 1 && tokens[0] === "*") return true;
  while (tokens.length > 1 && tokens[tokens.length - 1] === "*") tokens.pop();
  if (argv.length < tokens.length) return false;
  return tokens.every((t, i) => {
    const re = globToRegExp(t);
    if (re.test(argv[i])) return true;
    return i === 0 && byBasename && re.test(commandName(argv[0]));
  });
}

const globCache = new Map<string, RegExp>();
function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(
      /\?/g,
      "[\\s\\S]",
    );
    re = new RegExp(`^${body}$`);
    globCache.set(glob, re);
  }
  return re;
}
