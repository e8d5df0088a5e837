/**
 * SIGINT and SIGTERM for the whole process, with one owner. main.ts installs it before
 * it loads anything else, and it is never removed: Deno drops a signal that arrives
 * while no listener exists, and ends the process by the default action when none was
 * ever added, so listeners that come and go (one per phase of a run) lose signals in
 * the gaps between them. Everything that must react (the run, MCP start-up, the prompt
 * read from stdin) follows `interrupts.signal` instead of listening itself.
 *
 * A signal aborts `signal` with an InterruptedError; the command ends in its own way
 * and main.ts exits 130 (SIGINT) or 143 (SIGTERM). Two backstops keep a stop request
 * from being ignored: a second signal, or `GRACE_MS` without the process having
 * exited, runs the registered last words (session saved, `result` written) and exits.
 */
import { InterruptedError } from "./errors.ts";

export type InterruptSignal = "SIGINT" | "SIGTERM";

/** The exit code of a process ended by each signal (128 + its number, as shells report it). */
export const SIGNAL_EXIT: Record<InterruptSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** How long an interrupted command may take to end on its own before it is ended. */
export const GRACE_MS = 5_000;
/** How long a forced exit waits for stdout and stderr to drain. */
const DRAIN_MS = 1_000;

export class ProcessInterrupts {
  #controller = new AbortController();
  #first: InterruptSignal | undefined;
  #settled: number | undefined;
  #lastWords: Array<() => void> = [];
  #drain: () => Promise<void> = () => Promise.resolve();
  #forcing = false;
  #graceMs = GRACE_MS;
  #installed = false;

  /**
   * Starts listening for SIGINT and SIGTERM, for good. Idempotent. Where a signal
   * cannot be listened to (SIGTERM on Windows) its default action stays.
   */
  install(opts: { graceMs?: number } = {}): void {
    this.#graceMs = opts.graceMs ?? this.#graceMs;
    if (this.#installed) return;
    this.#installed = true;
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      try {
        Deno.addSignalListener(sig, () => this.#received(sig));
      } catch {
        // Not supported on this platform.
      }
    }
    // Deno catches SIGINT and SIGTERM from its own start and takes their default
    // action while no script listens, so /proc's SigCgt cannot tell whether these
    // listeners are in place yet. A listener on SIGWINCH, whose default is to do
    // nothing, is the mark a supervisor (or the signal scan) can read there.
    try {
      Deno.addSignalListener("SIGWINCH", () => {});
    } catch {
      // Not on Windows.
    }
  }

  /** Aborted, with an InterruptedError as its reason, by the first signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The first signal received, if any. */
  get received(): InterruptSignal | undefined {
    return this.#first;
  }

  throwIfInterrupted(): void {
    if (this.#first) throw this.#controller.signal.reason;
  }

  /** `work`, or the InterruptedError as soon as a signal arrives (work is left to finish). */
  race<T>(work: Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    let onAbort: () => void = () => {};
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([work, stopped]).finally(() => {
      signal.removeEventListener("abort", onAbort);
    });
  }

  /**
   * Registers what must happen even when the process is ended without the command
   * finishing (synchronous: save the session, write the `result`). The last registered
   * runs first. Dispose the returned handle when the command has done it itself.
   */
  atForcedExit(words: () => void): Disposable {
    this.#lastWords.push(words);
    return {
      [Symbol.dispose]: () => {
        const i = this.#lastWords.lastIndexOf(words);
        if (i >= 0) this.#lastWords.splice(i, 1);
      },
    };
  }

  /** How a forced exit flushes stdout and stderr (bounded by DRAIN_MS). */
  setDrain(drain: () => Promise<void>): void {
    this.#drain = drain;
  }

  /**
   * The command's ending is decided and written (its `result`): a signal after this
   * moment no longer changes the exit code; it only hurries the exit.
   */
  settle(code: number): void {
    this.#settled ??= code;
  }

  /** The process's exit code, given the command's: a signal wins unless the ending was settled. */
  exitCode(code: number): number {
    if (this.#settled !== undefined) return this.#settled;
    return this.#first ? SIGNAL_EXIT[this.#first] : code;
  }

  #received(sig: InterruptSignal): void {
    if (this.#first) {
      // A second signal: the user means it. End now.
      void this.#force();
      return;
    }
    this.#first = sig;
    this.#controller.abort(new InterruptedError(sig));
    const timer = setTimeout(() => void this.#force(), this.#graceMs);
    // Never what keeps the process alive: it only has to fire if something else does.
    Deno.unrefTimer(timer);
  }

  async #force(): Promise<void> {
    if (this.#forcing) return;
    this.#forcing = true;
    // What is still running fails as its session closes under it; none of that may
    // end the process first with an exit code of its own.
    globalThis.addEventListener("unhandledrejection", (e) => e.preventDefault());
    for (const words of this.#lastWords.splice(0).reverse()) {
      try {
        words();
      } catch {
        // The process ends anyway; the rest still gets its turn.
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#drain().catch(() => {}),
      new Promise((r) => timer = setTimeout(r, DRAIN_MS)),
    ]);
    clearTimeout(timer);
    Deno.exit(this.exitCode(1));
  }
}

/** The one owner of SIGINT and SIGTERM in this process (installed by main.ts). */
export const interrupts: ProcessInterrupts = new ProcessInterrupts();
