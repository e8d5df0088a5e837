/**
 * Entry of the command line: picks the command from one table and turns every
 * failure into its exit code with a one-line message, never a stack trace. Each
 * command's module is loaded only when it runs, so `--help` and `--version` start fast.
 */
import { EXIT, reportError } from "./exit_codes.ts";
import { type Io, processIo } from "./io.ts";
import { MAIN_HELP, VERSION } from "./help.ts";
import { SUPERVISOR_COMMAND } from "../jail/command_name.ts";
import { InterruptedError, UsageError } from "../util/errors.ts";
import { GRACE_MS, interrupts } from "../util/interrupts.ts";

/** A command: its arguments (after the command name) in, its exit code out. */
type Command = (argv: string[], io: Io) => Promise<number>;

interface CommandEntry {
  load(): Promise<Command>;
  /** Has no help text of its own: `--help` shows the overview instead of failing. */
  overviewHelp?: boolean;
}

const COMMANDS: Record<string, CommandEntry> = {
  run: { load: async () => (await import("./commands/run.ts")).runCommand },
  sessions: { load: async () => (await import("./commands/sessions.ts")).sessionsCommand },
  mcp: { load: async () => (await import("./commands/mcp.ts")).mcpCommand },
  models: {
    load: async () => (await import("./commands/models.ts")).modelsCommand,
    overviewHelp: true,
  },
  config: {
    load: async () => (await import("./commands/config.ts")).configCommand,
    overviewHelp: true,
  },
  schema: {
    load: async () => (await import("./commands/config.ts")).schemaCommand,
    overviewHelp: true,
  },
  sandbox: {
    load: async () => (await import("./commands/sandbox.ts")).sandboxCommand,
    overviewHelp: true,
  },
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
  const [command, ...rest] = argv;
  try {
    if (command === undefined || HELP.has(command)) {
      io.out(MAIN_HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (VERSION_FLAGS.has(command)) {
      io.out(`mopac ${VERSION}\n`);
      return EXIT.ok;
    }
    const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!entry) {
      throw new UsageError(`unknown command '${command}'`, {
        hint: "run 'mopac --help' for the commands",
      });
    }
    if (entry.overviewHelp && (rest.includes("--help") || rest.includes("-h"))) {
      io.out(MAIN_HELP);
      return EXIT.ok;
    }
    return await (await entry.load())(rest, io);
  } catch (err) {
    return reportError(err, io);
  }
}
