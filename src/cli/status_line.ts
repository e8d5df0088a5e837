/**
 * The live status on a terminal's stderr: one line saying what the run waits on and
 * for how long (the model: elapsed, tokens so far; a tool: its name, elapsed; a retry:
 * the time left), redrawn in place and cleared when the wait ends. Everything else
 * written to the terminal goes through `wrap`, which clears the line first, so a
 * message never lands in the middle of it. The line is drawn only where the cursor is
 * at the start of a line: never over an answer that is still streaming.
 */
import type { Io } from "./io.ts";
import type { Paint } from "./color.ts";

/**
 * What a run waits on; `since` is ms since the epoch. A model request being retried
 * has its `retry`: until `since` (the end of the delay) the line counts down.
 */
export type Waiting =
  | {
    what: "model";
    label: string;
    since: number;
    /** Characters of text and reasoning received so far. */
    chars: number;
    retry?: { attempt: number; reason: string };
  }
  | { what: "tool"; name: string; detail: string; since: number; others: number };

export interface StatusLineOptions {
  paint: Paint;
  now?: () => number;
  /** Terminal width; the line is cut to fit, since a wrapped line cannot be cleared. */
  columns?: () => number;
  /** Redraw interval (the spinner's speed); 0 draws only when told (tests). */
  intervalMs?: number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR = "\r\x1b[2K";

export class StatusLine {
  #waiting: Waiting | undefined;
  #shown = false;
  #atLineStart = true;
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #now: () => number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly opts: StatusLineOptions,
  ) {
    this.#now = opts.now ?? Date.now;
  }

  /** What is waited on now; undefined: nothing (the line goes away). */
  show(waiting: Waiting | undefined): void {
    this.#waiting = waiting;
    if (waiting) this.#startTimer();
    else this.#stopTimer();
    this.refresh();
  }

  get waiting(): Waiting | undefined {
    return this.#waiting;
  }

  /** Draws the line as it is now (the timer calls this). */
  refresh(): void {
    const w = this.#waiting;
    if (!w || !this.#atLineStart) return this.#clear();
    this.#frame = (this.#frame + 1) % FRAMES.length;
    const line = this.describe(w);
    // The spinner and a space go first; the last column stays free (no wrap).
    const width = Math.max(20, this.opts.columns?.() ?? 80) - 3;
    const cut = [...line].length > width ? [...line].slice(0, width - 1).join("") + "…" : line;
    const { paint } = this.opts;
    this.write(`${CLEAR}${paint.cyan(FRAMES[this.#frame])} ${paint.dim(cut)}`);
    this.#shown = true;
  }

  /** The words of the line (without the spinner). */
  describe(w: Waiting): string {
    const now = this.#now();
    switch (w.what) {
      case "model": {
        const { retry } = w;
        if (retry && now < w.since) {
          const left = elapsed(w.since - now, true);
          return `${w.label}: attempt ${retry.attempt} in ${left} (${retry.reason})`;
        }
        const tokens = Math.round(w.chars / 4);
        const attempt = retry ? ` · attempt ${retry.attempt}` : "";
        const got = w.chars > 0 ? ` · ~${tokens} token${tokens === 1 ? "" : "s"} so far` : "";
        return `waiting for ${w.label} · ${elapsed(now - w.since)}${attempt}${got}`;
      }
      case "tool": {
        const more = w.others > 0 ? ` (+${w.others} more)` : "";
        const detail = w.detail ? ` · ${w.detail}` : "";
        return `running ${w.name}${more} · ${elapsed(now - w.since)}${detail}`;
      }
    }
  }

  /** Clears the line for good and stops redrawing. */
  close(): void {
    this.#waiting = undefined;
    this.#stopTimer();
    this.#clear();
  }

  /**
   * `io` with every write to the terminal clearing the line first. stdout counts only
   * when it is the terminal too; a piped stdout never disturbs the line.
   */
  wrap<T extends Pick<Io, "out" | "err">>(io: T, stdoutIsTerminal: boolean): T {
    const through = (write: (t: string) => void) => (text: string) => {
      if (text === "") return;
      this.#clear();
      write(text);
      this.#atLineStart = text.endsWith("\n");
    };
    return {
      ...io,
      out: stdoutIsTerminal ? through((t) => io.out(t)) : (t: string) => io.out(t),
      err: through((t) => io.err(t)),
    };
  }

  #clear(): void {
    if (!this.#shown) return;
    this.write(CLEAR);
    this.#shown = false;
  }

  #startTimer(): void {
    const ms = this.opts.intervalMs ?? 100;
    if (this.#timer !== undefined || ms <= 0) return;
    const timer = setInterval(() => this.refresh(), ms);
    // A status line never keeps the process alive.
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Whole seconds, "1m05s" from a minute on; `ceil` for a countdown. */
export function elapsed(ms: number, ceil = false): string {
  const s = Math.max(0, ceil ? Math.ceil(ms / 1000) : Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
