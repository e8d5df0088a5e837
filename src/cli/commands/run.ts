/**
 * `mopac run`: read the prompt, prepare the run through the composition root,
 * render its events and turn its ending into the exit code. The run is closed
 * (MCP servers stopped, session written and unlocked) before its `result` is
 * written, so the `result` is the last thing that happens: a signal that arrives
 * before it makes the ending `cancelled`, from the first moment to the last.
 */
import { resolve } from "node:path";
import { outputFormatOf, parseRunArgs } from "../flags.ts";
import { RUN_HELP } from "../help.ts";
import type { Io } from "../io.ts";
import { createRenderer } from "../render.ts";
import { readPrompt } from "../prompt_input.ts";
import { answerFileError, emptyAnswerFile, writeAnswerFile } from "../answer_file.ts";
import { terminalFor } from "../progress.ts";
import { endingOf, EXIT, explained, reportError } from "../exit_codes.ts";
import { InterruptedError, UsageError } from "../../util/errors.ts";
import { interrupts } from "../../util/interrupts.ts";
import { RunEnding } from "../run_ending.ts";
import { promptFromFile } from "../prompt_file.ts";

export async function runCommand(argv: string[], io: Io): Promise<number> {
  let args: ReturnType<typeof parseRunArgs>;
  try {
    args = parseRunArgs(argv);
  } catch (err) {
    // A bad flag is a failure before the start too: json consumers get their result.
    const output = outputFormatOf(argv);
    const renderer = createRenderer(output, io, { quiet: true, verbose: false });
    new RunEnding(renderer, Date.now()).failed(err, output !== "text");
    return reportError(err, io);
  }
  if (args.help) {
    io.out(RUN_HELP);
    return EXIT.ok;
  }
  if (args.inputFormat === "stream-json") {
    return await (await import("../stream_input.ts")).streamInputRun(args, io);
  }
  const terminal = terminalFor(io, args);
  io = terminal.io;
  const renderer = createRenderer(args.output, io, {
    ...args,
    terminal,
    sameTerminal: Deno.stdout.isTerminal() && Deno.stderr.isTerminal(),
  });
  const ending = new RunEnding(renderer, Date.now());
  // Should the process have to be ended before the run ends itself, json consumers
  // still get their `result` (registered first, so it runs after the session is saved).
  using _lastWords = interrupts.atForcedExit(() => ending.forced());
  try {
    interrupts.throwIfInterrupted();
    const input = await interrupts.race(
      args.promptFile === undefined ? readPrompt(args, io) : promptFromFile(args.promptFile, {
        words: args.prompt,
        cwd: args.cwd,
        noStdin: args.noStdin,
      }),
    );
    if (input.prompt.trim() === "" && !args.dryRun) {
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
      outcome = await run.execute(input.prompt, ending.event, interrupts.signal, input.title);
    } finally {
      await run[Symbol.asyncDispose]();
    }
    // Everything before the result is out first: the result is the ending's last step.
    await io.drain();
    if (args.outputLastMessage) {
      const file = resolve(run.init.cwd, args.outputLastMessage);
      const failed = outcome.error !== undefined || interrupts.received !== undefined;
      try {
        await writeAnswerFile(file, failed ? undefined : outcome);
      } catch (err) {
        // The file is part of the run's output: a run that could not write it did not succeed.
        outcome = { ...outcome, error: answerFileError(args.outputLastMessage, err) };
      }
    }
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
    // No answer from an earlier run stays in the file.
    if (args.outputLastMessage) {
      await emptyAnswerFile(resolve(args.cwd ?? ".", args.outputLastMessage));
    }
    ending.failed(cause, args.output !== "text");
    return reportError(cause, io);
  }
}
