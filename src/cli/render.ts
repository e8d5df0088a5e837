/**
 * How a run's events reach the user, one renderer per output format: json and
 * stream-json print the events; text prints the assistant's text on stdout as it
 * streams and progress on stderr. A retried response is printed only beyond what is
 * already on the screen (DESIGN §3).
 */
import type { RunEvent } from "../app/run_events.ts";
import type { Io } from "./io.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface Renderer {
  event(e: RunEvent): void;
}

export function createRenderer(
  format: OutputFormat,
  io: Io,
  opts: { quiet: boolean; verbose: boolean },
): Renderer {
  switch (format) {
    case "text":
      return textRenderer(io, opts);
    case "json":
      return {
        event(e) {
          // Retries are logged on stderr by the provider itself.
          if (e.type === "result") io.out(JSON.stringify({ v: 1, ...e }) + "\n");
        },
      };
    case "stream-json":
      return { event: (e) => io.out(JSON.stringify({ v: 1, ...e }) + "\n") };
  }
}

interface Printed {
  /** Text of the current attempt of this message. */
  current: string;
  /** What stdout already shows of this message. */
  printed: string;
}

function textRenderer(io: Io, opts: { quiet: boolean; verbose: boolean }): Renderer {
  const messages = new Map<string, Printed>();
  let lastChar = "\n";
  let lastMessage = "";
  const out = (t: string) => {
    if (t === "") return;
    io.out(t);
    lastChar = t.at(-1)!;
  };
  const note = (t: string) => {
    if (!opts.quiet) io.err(t.endsWith("\n") ? t : t + "\n");
  };
  // A retried response that does not continue what stdout shows is printed again whole.
  const reprint = (st: Printed) => {
    io.err("mopac: the retried response differs from the text already printed\n");
    out((lastChar === "\n" ? "" : "\n") + st.current);
    st.printed = st.current;
  };

  return {
    event(e: RunEvent) {
      switch (e.type) {
        case "text": {
          let st = messages.get(e.message_id);
          if (!st) {
            st = { current: "", printed: "" };
            messages.set(e.message_id, st);
          }
          if (lastMessage !== e.message_id && lastChar !== "\n") out("\n");
          lastMessage = e.message_id;
          st.current += e.delta;
          if (st.current.startsWith(st.printed)) {
            out(st.current.slice(st.printed.length));
            st.printed = st.current;
          } else if (!st.printed.startsWith(st.current)) {
            reprint(st);
          }
          return;
        }
        case "turn": {
          // The message is complete: a retried answer shorter than what is already on
          // the screen never triggered the check above.
          const st = messages.get(lastMessage);
          if (st && st.printed !== st.current) reprint(st);
          return;
        }
        case "retry": {
          const st = messages.get(e.message_id);
          // The provider's own log line on stderr already says why and when.
          if (st) st.current = "";
          return;
        }
        case "tool_call":
          // End the open line first so progress on a shared terminal starts clean.
          if (lastChar !== "\n") out("\n");
          if (opts.verbose) note(`→ ${e.name} ${JSON.stringify(e.input)}`);
          else note(`→ ${e.name}`);
          return;
        case "tool_result":
          if (e.denied) note(`✗ ${e.name} denied: ${e.output}`);
          else if (e.is_error && opts.verbose) note(`✗ ${e.name}: ${firstLine(e.output)}`);
          return;
        case "summarized":
          note("mopac: context summarized");
          return;
        case "init":
          if (opts.verbose) {
            note(`mopac: session ${e.session_id}, model ${e.model}, agent ${e.agent}`);
          }
          return;
        case "result":
          if (lastChar !== "\n") out("\n");
          if (e.is_error && e.error) io.err(`mopac: ${e.error}\n`);
          return;
        default:
          return;
      }
    },
  };
}

function firstLine(s: string): string {
  const line = s.split("\n", 1)[0];
  return line.length > 200 ? line.slice(0, 200) + "…" : line;
}
