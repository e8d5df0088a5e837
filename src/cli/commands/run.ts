/**
 * `mopac run`: read the prompt, prepare the run through the composition root,
 * render its events and turn its ending into the exit code. The run is closed
 * (MCP servers stopped, session written and unlocked) before its `result` is
 * written, so the `result` is the last thing that happens: a signal that arrives
 * before it makes the ending `cancelled`, from the first moment to the last.
 */
import { fstatSync } from "node:fs";
import { parseRunArgs, type RunArgs } from "../flags.ts";
import { RUN_HELP } from "../help.ts";
import type { Io } from "../io.ts";
import { createRenderer } from "../render.ts";
import { terminalFor } from "../progress.ts";
import { endingOf, EXIT, explained, reportError } from "../exit_codes.ts";
import { InterruptedError, UsageError } from "../../util/errors.ts";
import { interrupts } from "../../util/interrupts.ts";
import { RunEnding } from "../run_ending.ts";

export async function runCommand(argv: string[], io: Io): Promise<number> {
  const args = parseRunArgs(argv);
  if (args.help) {
    io.out(RUN_HELP);
    return EXIT.ok;
  }
  const terminal = terminalFor(io, args);
  io = terminal.io;
  const renderer = createRenderer(args.output, io, { ...args, terminal });
  const ending = new RunEnding(renderer, Date.now());
  // Should the process have to be ended before the run ends itself, json consumers
  // still get their `result` (registered first, so it runs after the session is saved).
  using _lastWords = interrupts.atForcedExit(() => ending.forced());
  try {
    interrupts.throwIfInterrupted();
    const prompt = await interrupts.race(readPrompt(args));
    if (prompt.trim() === "" && !args.dryRun) {
      throw new UsageError("no prompt given", {
        hint: `pass it as arguments (mopac run "fix the failing test") or pipe it on stdin`,
      });
    }
    const { prepareRun } = await interrupts.race(import("../../app/run.ts"));
    const run = await prepareRun(args, {
      warn: (line: string) => args.quiet || io.err(`${line}\n`),
      signal: interrupts.signal,
      onSession: (id) => ending.sessionId = id,
      endingOf,
    });
    let outcome;
    try {
      ending.sessionId = run.init.session_id;
      if (args.dryRun) {
        io.out(JSON.stringify(run.describe(), null, 2) + "\n");
        return EXIT.ok;
      }
      interrupts.throwIfInterrupted();
      ending.event(run.init);
      outcome = await run.execute(prompt, ending.event, interrupts.signal);
    } finally {
      await run[Symbol.asyncDispose]();
    }
    // Everything before the result is out first: the result is the ending's last step.
    await io.drain();
    const { code, error } = ending.finish(outcome, interrupts.received);
    if (code === EXIT.internal && error) reportError(error, io);
    return code;
  } catch (err) {
    terminal.status?.close();
    // Failures before the run started: json consumers still get a result object.
    const signal = interrupts.received;
    const cause = signal && !(err instanceof InterruptedError)
      ? new InterruptedError(signal)
      : explained(err);
    ending.failed(cause, args.output !== "text");
    return reportError(cause, io);
  }
}

/** Piped stdin (a FIFO or a file, not a terminal or /dev/null) comes first, then the arguments. */
async function readPrompt(args: RunArgs): Promise<string> {
  const fromArgs = args.prompt.join(" ");
  let piped = "";
  try {
    const info = fstatSync(0);
    if (!Deno.stdin.isTerminal() && (info.isFIFO() || info.isFile())) {
      piped = (await new Response(Deno.stdin.readable).text()).trimEnd();
    }
  } catch {
    piped = "";
  }
  return [piped, fromArgs].filter((s) => s !== "").join("\n\n");
}
