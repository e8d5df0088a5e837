/**
 * How a run's events reach the user, one renderer per output format: json and
 * stream-json print the events; text prints the final answer on stdout and nothing
 * else (DESIGN §3), while the assistant's text streams on stderr as progress with the
 * tool lines, since until a message ends nobody knows whether tool calls follow it.
 * A retried response is shown only beyond what is already on the screen.
 * Signs of life on stderr (progress lines, the status line) are progress.ts's,
 * added here for text and json.
 */
import type { ResultEvent, RunEvent } from "../app/run_events.ts";
import type { Io } from "./io.ts";

/** Where a renderer writes: stdout and stderr. */
type Output = Pick<Io, "out" | "err">;
import { TextBuilder } from "../util/text_builder.ts";
import { paint } from "./color.ts";
import { progressRenderer, type Terminal } from "./progress.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface Renderer {
  event(e: RunEvent): void;
}

export interface RenderOptions {
  quiet: boolean;
  verbose: boolean;
  /**
   * stdout and stderr are one terminal: the answer streamed on stderr is already on
   * the screen, and printing it again on stdout would show it twice.
   */
  sameTerminal?: boolean;
  ephemeral?: boolean;
  /** stderr's status line and colours (progress.ts `terminalFor`). */
  terminal?: Pick<Terminal, "status" | "paint">;
}

/**
 * A successful run's final answer as stdout (and `--output-last-message`) carry it:
 * the validated JSON with `--output-schema`, else the text; undefined for a failed run.
 */
export function finalAnswer(
  e: Pick<ResultEvent, "is_error" | "result" | "structured_output">,
): string | undefined {
  if (e.is_error) return undefined;
  const answer = e.structured_output !== undefined ? JSON.stringify(e.structured_output) : e.result;
  return answer === "" || answer.endsWith("\n") ? answer : answer + "\n";
}

export function createRenderer(
  format: OutputFormat,
  io: Output,
  opts: RenderOptions,
): Renderer {
  const progress = (lines: boolean) =>
    progressRenderer(io, {
      ...opts,
      lines,
      status: opts.terminal?.status,
      paint: opts.terminal?.paint ?? paint(false),
    });
  switch (format) {
    case "text":
      return both(textRenderer(io, opts), progress(true));
    case "json":
      return both({
        event(e) {
          // Retries are logged on stderr by the provider itself.
          if (e.type === "result") io.out(wireLine(e));
        },
      }, progress(false));
    case "stream-json":
      return { event: (e) => io.out(wireLine(e)) };
  }
}

function both(first: Renderer, second: Renderer): Renderer {
  return {
    event(e) {
      first.event(e);
      second.event(e);
    },
  };
}

/** One event as a line of the wire format: its version and when it was written first. */
function wireLine(e: RunEvent): string {
  return JSON.stringify({ v: 1, ts: Date.now(), ...e }) + "\n";
}

interface Printed {
  /** What the screen (stderr) already shows of this message. */
  printed: TextBuilder;
  /**
   * Length of the current attempt's text, which matches the start of `printed`: equal
   * to it while nothing was retried, shorter while a retry replays what is shown.
   */
  current: number;
}

function textRenderer(io: Output, opts: RenderOptions): Renderer {
  const messages = new Map<string, Printed>();
  let lastChar = "\n";
  let lastMessage = "";
  // The assistant's text as it streams: progress, on stderr like the tool lines.
  const out = (t: string) => {
    if (t === "" || opts.quiet) return;
    io.err(t);
    lastChar = t.at(-1)!;
  };
  // A retried response that does not continue what stdout shows is printed again whole.
  const reprint = (st: Printed, current: string) => {
    io.err("mopac: the retried response differs from the text already printed\n");
    out((lastChar === "\n" ? "" : "\n") + current);
    st.printed = new TextBuilder(current);
    st.current = current.length;
  };
  // Only the new text is looked at (a whole-answer comparison per delta would make a
  // long answer cost the square of its length); what is shown is read only after a retry.
  const append = (st: Printed, delta: string) => {
    if (st.current === st.printed.length) {
      out(delta);
      st.printed.append(delta);
      st.current += delta.length;
      return;
    }
    const shown = st.printed.toString();
    const overlap = Math.min(delta.length, shown.length - st.current);
    if (!shown.startsWith(delta.slice(0, overlap), st.current)) {
      return reprint(st, shown.slice(0, st.current) + delta);
    }
    st.current += overlap;
    if (overlap < delta.length) append(st, delta.slice(overlap));
  };

  return {
    event(e: RunEvent) {
      switch (e.type) {
        case "text": {
          let st = messages.get(e.message_id);
          if (!st) {
            st = { printed: new TextBuilder(), current: 0 };
            messages.set(e.message_id, st);
          }
          if (lastMessage !== e.message_id && lastChar !== "\n") out("\n");
          lastMessage = e.message_id;
          append(st, e.delta);
          return;
        }
        case "turn": {
          // The message is complete: a retried answer shorter than what is already on
          // the screen never triggered the check above.
          const st = messages.get(lastMessage);
          if (st && st.current < st.printed.length) {
            reprint(st, st.printed.toString().slice(0, st.current));
          }
          return;
        }
        case "retry": {
          // The provider's line about the retry follows: it starts on a line of its own.
          if (lastChar !== "\n") out("\n");
          const st = messages.get(e.message_id);
          // The provider's own log line on stderr already says why and when.
          if (st) st.current = 0;
          return;
        }
        case "tool_call":
          // End the open line first so progress on a shared terminal starts clean.
          if (lastChar !== "\n") out("\n");
          return;
        case "result": {
          if (lastChar !== "\n") out("\n");
          if (e.is_error && e.error) io.err(`mopac: ${e.error}\n`);
          const answer = finalAnswer(e);
          // On one terminal the streamed answer is on the screen already (unless -q hid it).
          const shown = opts.sameTerminal && !opts.quiet && e.structured_output === undefined;
          if (answer && !shown) io.out(answer);
          return;
        }
        default:
          return;
      }
    },
  };
}
