/**
 * How one `mopac run` ends: exactly one `result`, written last, whose exit code is the
 * process's. It passes the run's events on to the renderer and keeps what it needs of
 * them (session, turns, spend), so that a run ended early, even by a forced exit,
 * still reports them. A signal received before the result is written makes the
 * ending `cancelled` (130/143); once the result is out, the ending is settled.
 */
import type { RunOutcome } from "../agent/types.ts";
import { failedResult, type RunEvent, type SoFar } from "../app/run_events.ts";
import { resultEvent } from "../app/run_events.ts";
import { addUsage, emptyUsage } from "../domain/usage.ts";
import { InterruptedError, type MopacError } from "../util/errors.ts";
import { interrupts, type InterruptSignal } from "../util/interrupts.ts";
import { endingOf } from "./exit_codes.ts";
import type { Renderer } from "./render.ts";

export class RunEnding {
  sessionId = "";
  #turns = 0;
  #usage = emptyUsage();
  #cost = 0;
  #written = false;

  constructor(private readonly renderer: Renderer, private readonly startedMs: number) {}

  /** Renders one event of the run (never the result: that is this class's own). */
  event = (e: RunEvent): void => {
    if (e.type === "turn") {
      this.#turns = e.n;
      this.#usage = addUsage(this.#usage, e.usage);
      this.#cost += e.cost_usd;
    }
    this.renderer.event(e);
  };

  /** The run's own ending: its outcome, unless a signal came first. */
  finish(outcome: RunOutcome, signal: InterruptSignal | undefined): {
    code: number;
    error?: MopacError;
  } {
    let error = outcome.error;
    if (signal && !(error instanceof InterruptedError)) error = new InterruptedError(signal);
    const ending = endingOf(error);
    this.#write(ending.code, () =>
      resultEvent({ ...outcome, error }, ending, {
        session_id: this.sessionId,
        startedMs: this.startedMs,
      }));
    return { code: ending.code, error };
  }

  /**
   * A run that failed or was interrupted before it could end itself. In text mode the
   * caller prints the error line, so only json modes render the result.
   */
  failed(err: unknown, render: boolean): number {
    const ending = endingOf(err);
    if (render) this.#write(ending.code, () => this.#early(err, ending));
    else this.#settle(ending.code);
    return ending.code;
  }

  /** Last words of a forced exit: the `cancelled` result, unless one is out already. */
  forced(): void {
    const err = new InterruptedError(interrupts.received ?? "SIGTERM");
    const ending = endingOf(err);
    this.#write(ending.code, () => this.#early(err, ending));
  }

  #early(err: unknown, ending: ReturnType<typeof endingOf>) {
    const sofar: SoFar = {
      session_id: this.sessionId,
      num_turns: this.#turns,
      usage: this.#usage,
      cost_usd: this.#cost,
    };
    return failedResult(err, ending, this.startedMs, sofar);
  }

  #write(code: number, result: () => RunEvent): void {
    if (this.#written) return;
    this.#settle(code);
    this.renderer.event(result());
  }

  #settle(code: number): void {
    this.#written = true;
    interrupts.settle(code);
  }
}
