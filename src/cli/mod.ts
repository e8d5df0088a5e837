/**
 * Entry of the command line: picks the command from one table and turns every
 * failure into its exit code with a one-line message, never a stack trace. Each
 * command's module is loaded only when it runs, so `--help` and `--version` start fast.
 */
import { EXIT, reportError } from "./exit_codes.ts";
import { type Io, processIo } from "./io.ts";
import { MAIN_HELP } from "./help.ts";
import { COMMAND_SPECS, GLOBAL_OPTIONS } from "./command_specs.ts";
import { didYouMean } from "./suggest.ts";
import { SUPERVISOR_COMMAND } from "../jail/command_name.ts";
import { InterruptedError, UsageError } from "../util/errors.ts";
import { GRACE_MS, interrupts } from "../util/interrupts.ts";

/** A command: its arguments (after the command name) in, its exit code out. */
type Command = (argv: string[], io: Io) => Promise<number>;

interface CommandEntry {
  load(): Promise<Command>;
}

const COMMANDS: Record<string, CommandEntry> = {
  run: { load: async () => (await import("./commands/run.ts")).runCommand },
  sessions: { load: async () => (await import("./commands/sessions.ts")).sessionsCommand },
  mcp: { load: async () => (await import("./commands/mcp.ts")).mcpCommand },
  models: {
    load: async () => (await import("./commands/models.ts")).modelsCommand,
  },
  config: {
    load: async () => (await import("./commands/config.ts")).configCommand,
  },
  schema: {
    load: async () => (await import("./commands/config.ts")).schemaCommand,
  },
  sandbox: {
    load: async () => (await import("./commands/sandbox.ts")).sandboxCommand,
  },
  completions: {
    load: async () => (await import("./commands/completions.ts")).completionsCommand,
  },
  doctor: { load: async () => (await import("./commands/doctor.ts")).doctorCommand },
  // A compiled mopac starting itself inside a session's OS jail (see jail/supervisor.ts).
  [SUPERVISOR_COMMAND]: {
    load: async () => {
      const { supervisorMain } = await import("../jail/supervisor.ts");
      return async () => {
        await supervisorMain();
        return EXIT.ok;
      };
    },
  },
};

const HELP = new Set(["-h", "--help", "help"]);
const VERSION_FLAGS = new Set(["-V", "--version", "version"]);

/**
 * The process: runs the command, drains stdout and stderr, and exits with the code of
 * how it ended. A signal the command did not turn into its own ending (commands other
 * than `run`) still makes the exit code 130/143.
 */
export async function main(argv: string[]): Promise<never> {
  const io = processIo();
  interrupts.setDrain(io.drain);
  // Registered first, so it is said last, after the command's own last words.
  interrupts.atForcedExit(() =>
    io.err(
      `mopac: not stopped within ${GRACE_MS / 1000} s of ${interrupts.received ?? "the signal"}; ` +
        "ending now\n",
    )
  );
  const code = await runCli(argv, io);
  const exit = interrupts.exitCode(code);
  if (exit !== code && interrupts.received) {
    reportError(new InterruptedError(interrupts.received), io);
  }
  await io.drain();
  if (io.stdout.failure) {
    io.err(`mopac: stdout: ${io.stdout.failure.message}\n`);
    await io.drain();
  }
  Deno.exit(exit);
}

export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  try {
    const { globals, rest: [command, ...rest] } = leadingGlobals(argv);
    if (command === undefined) {
      // `mopac` alone is a mistake: the overview, on stderr, exit 2.
      io.err(MAIN_HELP);
      return EXIT.usage;
    }
    if (HELP.has(command)) {
      const topic = command === "help" ? rest[0] : undefined;
      io.out(topic === undefined ? MAIN_HELP : specOf(topic).help);
      return EXIT.ok;
    }
    if (VERSION_FLAGS.has(command)) {
      const { versionText } = await import("./version_text.ts");
      io.out(await versionText());
      return EXIT.ok;
    }
    const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!entry) specOf(command);
    const spec = Object.hasOwn(COMMAND_SPECS, command) ? COMMAND_SPECS[command] : undefined;
    if (spec && wantsHelp(rest)) {
      io.out(spec.help);
      return EXIT.ok;
    }
    return await (await entry!.load())([...globals, ...rest], io);
  } catch (err) {
    return reportError(err, io);
  }
}

/** The spec of a command the user named; an unknown name is a usage error with a guess. */
function specOf(command: string) {
  if (Object.hasOwn(COMMAND_SPECS, command)) return COMMAND_SPECS[command];
  const guess = didYouMean(command, Object.keys(COMMAND_SPECS), (n) => `mopac ${n}`);
  throw new UsageError(`unknown command '${command}'`, {
    hint: `${guess ? `${guess} ` : ""}run 'mopac --help' for the commands`,
  });
}

/** -h or --help among a command's arguments (before `--`, after which all is positional). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/**
 * `mopac --cwd DIR --config FILE run …`: the global flags before the command are taken
 * off and given to it (first, so a `--` among its arguments cannot swallow them).
 */
function leadingGlobals(argv: string[]): { globals: string[]; rest: string[] } {
  const globals: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const [name] = argv[i].split("=", 1);
    const option = Object.hasOwn(GLOBAL_OPTIONS, name.slice(2)) && name.startsWith("--")
      ? GLOBAL_OPTIONS[name.slice(2) as keyof typeof GLOBAL_OPTIONS]
      : undefined;
    if (!option) break;
    globals.push(argv[i]);
    if (option.type === "string" && !argv[i].includes("=")) {
      const value = argv[++i];
      if (value === undefined || value.startsWith("-")) {
        throw new UsageError(`${name} needs a value`, { hint: `write ${name} PATH` });
      }
      globals.push(value);
    }
  }
  return { globals, rest: argv.slice(i) };
}
