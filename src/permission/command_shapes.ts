/**
 * What a command line means, as far as deny patterns and argument-dependent bans
 * need it: its subcommand with the program's global options skipped (`git -C . -c
 * x=y push` is `git push`), its other positional words, and its options spelled
 * one way (`rm -fr`, `rm -r -f`, `rm --recursive --force` and `rm --rec -f` all hold
 * `-r` and `-f`; `npm isntall` and `npm i` are `npm install`). Programs not in the
 * table get the generic reading: words starting with `-` are options (clusters of
 * single letters split), the rest are positionals.
 */
import { commandName } from "./command_name.ts";

export interface CommandShape {
  name: string;
  /** Positional words in order, the subcommand (canonical spelling) first when there is one. */
  positionals: string[];
  /** Options, each also as its canonical spelling and split into single letters. */
  options: Set<string>;
  /** The subcommand may be anything (`git -c alias.x=push x`): deny patterns match any. */
  anySub?: boolean;
}

interface Program {
  /** Global options before the subcommand that take the next word as their value. */
  globalValues?: { short?: string; long?: string[] };
  /** Canonical name of a subcommand (aliases, abbreviations). */
  sub?: (word: string) => string;
  /**
   * Options may take values the table does not know (npm's `--registry URL`): the
   * subcommand is the first positional that is one of these.
   */
  commands?: readonly string[];
  /** Options that mean the same: spelling → canonical spelling. */
  same?: Record<string, string>;
  /** Long options a unique prefix of which is accepted (GNU getopt, npm's nopt). */
  longs?: string[];
  /** `+toolchain` words (cargo, rustup) are global options. */
  plus?: boolean;
}

const NPM_COMMANDS = (
  "access adduser approve-scripts audit bugs cache ci completion config dedupe deny-scripts " +
  "deprecate diff dist-tag docs doctor edit exec explain explore find-dupes fund get help " +
  "help-search init install install-ci-test install-scripts install-test link ll login logout " +
  "ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart " +
  "root run sbom search set shrinkwrap stage star stars start stop team test token trust " +
  "undeprecate uninstall unpublish unstar update version view whoami"
).split(" ");
const NPM_ALIASES: Record<string, string> = Object.fromEntries(
  (
    "author:owner home:docs issues:bugs info:view show:view find:search add:install " +
    "unlink:uninstall remove:uninstall rm:uninstall r:uninstall un:uninstall rb:rebuild " +
    "list:ls ln:link create:init i:install it:install-test cit:install-ci-test u:update " +
    "up:update c:config s:search se:search tst:test t:test ddp:dedupe v:view run-script:run " +
    "clean-install:ci clean-install-test:install-ci-test x:exec why:explain la:ll " +
    "verison:version ic:ci innit:init in:install ins:install inst:install insta:install " +
    "instal:install isnt:install isnta:install isntal:install isntall:install " +
    "install-clean:ci isntall-clean:ci hlep:help dist-tags:dist-tag upgrade:update " +
    "udpate:update rum:run sit:install-ci-test urn:run ogr:org add-user:adduser"
  ).split(" ").map((pair) => pair.split(":")),
);

/** npm's own reading of a command word: camelCase, exact, alias, then a unique prefix. */
function npmCommand(word: string): string {
  const c = word.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
  if (NPM_COMMANDS.includes(c)) return c;
  if (NPM_ALIASES[c]) return NPM_ALIASES[c];
  const all = [...NPM_COMMANDS, ...Object.keys(NPM_ALIASES)].filter((n) => n.startsWith(c));
  if (c !== "" && all.length > 0 && new Set(all.map((n) => NPM_ALIASES[n] ?? n)).size === 1) {
    return NPM_ALIASES[all[0]] ?? all[0];
  }
  return c;
}

const NPM: Program = {
  globalValues: {
    short: "wC",
    long: (
      "--workspace --prefix --registry --userconfig --globalconfig --cache --tag --otp " +
      "--access --loglevel --scope --before --omit --include --location --cpu --os --libc " +
      "--script-shell --install-strategy --auth-type"
    ).split(" "),
  },
  sub: npmCommand,
  commands: NPM_COMMANDS,
  same: { "-g": "--global", "-f": "--force", "-D": "--save-dev", "-S": "--save" },
  longs: ["--global", "--location", "--force", "--prefix", "--registry", "--workspace"],
};

const PROGRAMS: Record<string, Program> = {
  git: {
    globalValues: {
      short: "Cc",
      long: [
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--attr-source",
        "--exec-path",
      ],
    },
    sub: (w) => (w === "stage" ? "add" : w),
    same: { "-f": "--force", "-n": "--dry-run" },
  },
  npm: NPM,
  cnpm: NPM,
  pnpm: { same: { "-g": "--global" }, longs: ["--global"] },
  yarn: { globalValues: { long: ["--cwd"] } },
  bun: { same: { "-g": "--global" } },
  deno: { same: { "-g": "--global", "-A": "--allow-all", "-f": "--force" } },
  cargo: {
    plus: true,
    globalValues: { short: "CZ", long: ["--color", "--config", "--explain"] },
  },
  rustup: { plus: true },
  go: { globalValues: { short: "C" } },
  gem: {
    // RubyGems takes any unique prefix of a command (`gem ins`), and `i` for install.
    sub: (w) => (w === "i" || (w.length >= 3 && "install".startsWith(w)) ? "install" : w),
  },
  rm: {
    same: { "-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d" },
    longs: [
      "--recursive",
      "--force",
      "--dir",
      "--interactive",
      "--no-preserve-root",
      "--preserve-root",
      "--one-file-system",
      "--verbose",
    ],
  },
};

/** The shape of `argv` (wrappers already peeled). */
export function shapeOf(argv: readonly string[]): CommandShape {
  const name = commandName(argv[0] ?? "");
  const program = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : {};
  const options = new Set<string>();
  const positionals: string[] = [];
  let anySub = false;
  let i = 1;
  // Global options in front of the subcommand, with their values.
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (program.plus && a.startsWith("+")) continue;
    if (!a.startsWith("-") || a === "-" || a === "--") break;
    addOption(a, program, options);
    const g = program.globalValues;
    const eq = a.indexOf("=");
    const long = eq < 0 ? a : a.slice(0, eq);
    const takesValue = (a.startsWith("--") && eq < 0 && g?.long?.includes(long)) ||
      (!a.startsWith("--") && a.length === 2 && g?.short?.includes(a[1]));
    const value = takesValue ? argv[++i] : eq >= 0 ? a.slice(eq + 1) : undefined;
    // An alias or include defined on the command line can make the subcommand anything.
    if (name === "git" && value !== undefined && /^(alias\.|include)/i.test(value)) anySub = true;
  }
  let afterDashes = false;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (!afterDashes && a === "--") {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && a.startsWith("-") && a !== "-") addOption(a, program, options);
    else positionals.push(positionals.length === 0 && program.sub ? program.sub(a) : a);
  }
  if (program.commands && program.sub && !program.commands.includes(positionals[0] ?? "")) {
    // `npm --registry URL publish`: the URL is an option's value, not the subcommand.
    const at = positionals.findIndex((p) => program.commands!.includes(program.sub!(p)));
    if (at > 0) {
      positionals.splice(0, at + 1, program.sub(positionals[at]), ...positionals.slice(0, at));
    }
  }
  return { name, positionals, options, ...(anySub ? { anySub } : {}) };
}

/** Adds an option as written, without its value, and in its canonical spellings. */
function addOption(option: string, program: Program, out: Set<string>): void {
  const eq = option.indexOf("=");
  out.add(option);
  if (eq >= 0) out.add(option.slice(0, eq));
  for (const c of canonical(option, program)) out.add(c);
}

/**
 * The canonical options one written option stands for: a cluster (`-rf`) is its
 * letters, a unique prefix of a known long option (`--rec`) is that option, and an
 * alias (`-R`, `--recursive`) is its canonical spelling (`-r`). A value after `=` is
 * dropped.
 */
function canonical(option: string, program: Program): string[] {
  const eq = option.indexOf("=");
  const bare = eq < 0 ? option : option.slice(0, eq);
  let atoms = [bare];
  if (bare.startsWith("--")) {
    const full = program.longs?.filter((l) => l.startsWith(bare)) ?? [];
    if (full.length === 1) atoms = [full[0]];
  } else if (/^-[A-Za-z0-9]{2,}$/.test(bare)) {
    atoms = [...bare.slice(1)].map((c) => `-${c}`);
  }
  return atoms.map((a) => program.same?.[a] ?? a);
}

/**
 * What an option in a pattern asks of a command: each canonical option it stands for
 * (`-rf` asks for `-r` and `-f`); with `=value` the written option itself.
 */
export function patternOptions(option: string, name: string): string[] {
  const program = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : {};
  return option.includes("=") ? [option] : canonical(option, program);
}
