/**
 * `mopac run --input-format stream-json`: a multi-turn driver writes user messages
 * as JSON lines on stdin (input_messages.ts); each one is a turn of the same session,
 * run to its answer before the next line is read. The output is stream-json: one
 * `init`, then per message its events and a `result`. The run stops at the first
 * message that does not succeed (its exit code is the process's) or at the end of
 * stdin (0, or 2 when no message came at all). Limits of tokens, cost and time hold
 * across the messages; --max-turns counts per message.
 */
import type { RunArgs } from "./flags.ts";
import type { Io } from "./io.ts";
import { createRenderer } from "./render.ts";
import { terminalFor } from "./progress.ts";
import { endingOf, EXIT, explained, reportError } from "./exit_codes.ts";
import { lines, parseInputLine } from "./input_messages.ts";
import { failedResult, resultEvent, type RunEvent } from "../app/run_events.ts";
import { InterruptedError, UsageError } from "../util/errors.ts";
import { interrupts } from "../util/interrupts.ts";

function checkStreamInput(args: RunArgs): void {
  const refuse = (why: string) => {
    throw new UsageError(`--input-format stream-json ${why}`, {
      hint: "the messages come as JSON lines on stdin; the output is -o stream-json",
    });
  };
  if (args.prompt.length > 0) refuse("takes no prompt arguments");
  if (args.promptFile !== undefined) refuse("and -f both want to be the prompt");
  if (args.images.length > 0) refuse("takes images in the messages, not -i");
  if (args.dryRun) refuse("has nothing to do with --dry-run");
  if (args.outputLastMessage !== undefined) {
    refuse("gives a result per message: read them, not --output-last-message");
  }
}

export async function streamInputRun(args: RunArgs, io: Io): Promise<number> {
  const terminal = terminalFor(io, { ...args, output: "stream-json" });
  io = terminal.io;
  const renderer = createRenderer("stream-json", io, {
    ...args,
    terminal,
    sameTerminal: Deno.stdout.isTerminal() && Deno.stderr.isTerminal(),
  });
  const started = Date.now();
  let sessionId = "";
  let current: { started: number } | undefined;
  let settled = false;
  const result = (e: RunEvent) => {
    renderer.event(e);
  };
  // A forced exit mid-message still gets that message's `cancelled` result.
  using _lastWords = interrupts.atForcedExit(() => {
    if (!current || settled) return;
    const err = new InterruptedError(interrupts.received ?? "SIGTERM");
    result(failedResult(err, endingOf(err), current.started, sofar(sessionId)));
  });
  try {
    checkStreamInput(args);
    const { prepareRun } = await interrupts.race(import("../app/run.ts"));
    const run = await prepareRun(args, {
      warn: (line: string) => args.quiet || io.err(`${line}\n`),
      signal: interrupts.signal,
      onSession: (id) => sessionId = id,
      endingOf,
    });
    let code: number = EXIT.ok;
    let count = 0;
    try {
      sessionId = run.init.session_id;
      renderer.event(run.init);
      const input = lines(Deno.stdin.readable)[Symbol.asyncIterator]();
      for (let n = 1;; n++) {
        const next = await interrupts.race(input.next());
        if (next.done) break;
        if (next.value.trim() === "") continue;
        current = { started: Date.now() };
        let message;
        try {
          message = parseInputLine(next.value, n);
          if (message.images.length > 0 && !run.acceptsImages) {
            throw new UsageError(
              `--input-format stream-json: line ${n}: the model ${run.init.model} does not ` +
                "accept image attachments",
            );
          }
        } catch (err) {
          const ending = endingOf(err);
          result(failedResult(err, ending, current.started, sofar(sessionId)));
          reportError(err, io);
          code = ending.code;
          break;
        }
        count++;
        const outcome = await run.execute(
          message.text,
          renderer.event,
          interrupts.signal,
          undefined,
          {
            images: message.images,
          },
        );
        let error = outcome.error;
        const signal = interrupts.received;
        if (signal && !(error instanceof InterruptedError)) error = new InterruptedError(signal);
        const ending = endingOf(error);
        result(
          resultEvent({ ...outcome, error }, ending, {
            session_id: sessionId,
            startedMs: current.started,
          }),
        );
        current = undefined;
        if (ending.code !== EXIT.ok) {
          code = ending.code;
          break;
        }
      }
    } finally {
      await run[Symbol.asyncDispose]();
    }
    if (count === 0 && code === EXIT.ok) {
      const err = new UsageError("no prompt given: stdin held no message", {
        hint: 'write {"type":"user","message":{"role":"user","content":"…"}} lines on stdin',
      });
      result(failedResult(err, endingOf(err), started, sofar(sessionId)));
      code = reportError(err, io);
    }
    await io.drain();
    settled = true;
    interrupts.settle(code);
    return code;
  } catch (err) {
    const signal = interrupts.received;
    const cause = signal && !(err instanceof InterruptedError)
      ? new InterruptedError(signal)
      : explained(err);
    const ending = endingOf(cause);
    result(failedResult(cause, ending, current?.started ?? started, sofar(sessionId)));
    settled = true;
    interrupts.settle(ending.code);
    return reportError(cause, io);
  }
}

function sofar(session_id: string) {
  return {
    session_id,
    num_turns: 0,
    usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 },
    cost_usd: 0,
  };
}
