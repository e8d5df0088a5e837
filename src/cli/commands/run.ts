/**
 * `mopac run`: read the prompt, prepare the run through the composition root,
 * render its events and turn its ending into the exit code.
 */
import { fstatSync } from "node:fs";
import { parseRunArgs, type RunArgs } from "../flags.ts";
import { RUN_HELP } from "../help.ts";
import type { Io } from "../io.ts";
import { createRenderer } from "../render.ts";
import { endingOf, EXIT, reportError } from "../exit_codes.ts";
import { InterruptedError, UsageError } from "../../util/errors.ts";
import { failedResult, resultEvent } from "../../app/run_events.ts";

export async function runCommand(argv: string[], io: Io): Promise<number> {
  const args = parseRunArgs(argv);
  if (args.help) {
    io.out(RUN_HELP);
    return EXIT.ok;
  }
  const started = Date.now();
  const renderer = createRenderer(args.output, io, args);
  try {
    const prompt = await readPrompt(args);
    if (prompt.trim() === "" && !args.dryRun) {
      throw new UsageError("no prompt given", {
        hint: `pass it as arguments (mopac run "fix the failing test") or pipe it on stdin`,
      });
    }
    const { prepareRun } = await import("../../app/run.ts");
    await using run = await prepareRun(args, {
      warn: (line: string) => args.quiet || io.err(`${line}\n`),
    });
    if (args.dryRun) {
      io.out(JSON.stringify(run.describe(), null, 2) + "\n");
      return EXIT.ok;
    }
    renderer.event(run.init);
    const stop = watchSignals();
    const outcome = await run.execute(prompt, renderer.event, stop.signal).finally(stop.dispose);
    const ending = endingOf(outcome.error);
    renderer.event(
      resultEvent(outcome, ending, { session_id: run.init.session_id, startedMs: started }),
    );
    if (ending.code === EXIT.internal && outcome.error) reportError(outcome.error, io);
    return ending.code;
  } catch (err) {
    // Failures before the run started: json consumers still get a result object.
    if (args.output !== "text") renderer.event(failedResult(err, endingOf(err), started));
    return reportError(err, io);
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

function watchSignals(): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const handlers: Array<[Deno.Signal, () => void]> = [
    ["SIGINT", () => ac.abort(new InterruptedError("SIGINT"))],
    ["SIGTERM", () => ac.abort(new InterruptedError("SIGTERM"))],
  ];
  for (const [sig, h] of handlers) Deno.addSignalListener(sig, h);
  return {
    signal: ac.signal,
    dispose: () => handlers.forEach(([sig, h]) => Deno.removeSignalListener(sig, h)),
  };
}
