/**
 * Entry of the command line: picks the command and turns every failure into its
 * exit code with a one-line message, never a stack trace.
 */
import { endingOf, EXIT } from "./exit_codes.ts";
import { type Io, processIo } from "./io.ts";
import { MAIN_HELP, VERSION } from "./help.ts";
import { MopacError } from "../util/errors.ts";
import { readEnv } from "../util/env.ts";
import { explainNotCapable, isNotCapable } from "../deno_perms/not_capable.ts";

export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "-h":
      case "--help":
      case "help":
        io.out(MAIN_HELP);
        return command === undefined ? EXIT.usage : EXIT.ok;
      case "-V":
      case "--version":
      case "version":
        io.out(`mopac ${VERSION}\n`);
        return EXIT.ok;
      case "run":
        return await (await import("./commands/run.ts")).runCommand(rest, io);
      default: {
        const other = await import("./commands/other.ts");
        return await other.runOtherCommand(command, rest, io);
      }
    }
  } catch (err) {
    return reportError(err, io);
  }
}

export function reportError(err: unknown, io: Io): number {
  // A sandbox refusal anywhere becomes a usage error naming the flag to add.
  if (isNotCapable(err)) err = explainNotCapable(err);
  const { code } = endingOf(err);
  if (err instanceof MopacError) {
    io.err(`mopac: ${err.message}\n`);
    if (err.hint) io.err(`hint: ${err.hint}\n`);
  } else {
    const e = err instanceof Error ? err : new Error(String(err));
    io.err(`mopac: internal error: ${e.message}\n`);
    if (readEnv("MOPAC_DEBUG")) io.err(`${e.stack}\n`);
  }
  return code;
}
