/**
 * Signs of life on stderr, never on stdout. In text mode, lines: the session at the
 * start and at the end, a line when a tool starts and when it ends (ok, error or
 * denied, with its duration); the provider's own lines say when a retry waits. On a
 * terminal (text and json modes), also the live status line (status_line.ts). `-q`
 * silences all of it; an interrupted run still says how to resume its session.
 */
import type { RunEvent } from "../app/run_events.ts";
import type { Io } from "./io.ts";
import { type ColorMode, colorOn, type Paint, paint } from "./color.ts";
import { StatusLine, type Waiting } from "./status_line.ts";
import { shortIdOf } from "../session/ids.ts";

/** stderr as a run writes to it: `io` wrapped for the status line, when there is one. */
export interface Terminal<T extends Pick<Io, "out" | "err"> = Io> {
  io: T;
  status?: StatusLine;
  paint: Paint;
}

export function terminalFor<T extends Pick<Io, "out" | "err">>(
  io: T,
  opts: { output: string; quiet: boolean; color?: ColorMode },
): Terminal<T> {
  const stderrIsTerminal = Deno.stderr.isTerminal();
  const colors = paint(colorOn(opts.color ?? "auto", stderrIsTerminal));
  // stream-json's events are the progress; its reader may share the terminal.
  if (!stderrIsTerminal || opts.quiet || opts.output === "stream-json") {
    return { io, paint: colors };
  }
  const status = new StatusLine((t) => io.err(t), { paint: colors, columns });
  return { io: status.wrap(io, Deno.stdout.isTerminal()), status, paint: colors };
}

function columns(): number {
  try {
    return Deno.consoleSize().columns || 80;
  } catch {
    return 80;
  }
}

export interface ProgressOptions {
  /** Print progress lines (text mode); the status line is the terminal's business. */
  lines: boolean;
  quiet: boolean;
  verbose: boolean;
  ephemeral?: boolean;
  status?: StatusLine;
  paint: Paint;
  now?: () => number;
}

interface Running {
  name: string;
  detail: string;
  since: number;
}

/** A renderer (render.ts) of the run's progress on stderr. */
export function progressRenderer(
  io: Pick<Io, "err">,
  opts: ProgressOptions,
): { event(e: RunEvent): void } {
  const { paint: p, status } = opts;
  const now = opts.now ?? Date.now;
  const running = new Map<string, Running>();
  let model: Extract<Waiting, { what: "model" }> | undefined;
  let shortId = "";
  const line = (text: string) => {
    if (opts.lines && !opts.quiet) io.err(text + "\n");
  };
  // The earliest call still running is what the line shows (sub-agents run in parallel).
  const showTools = () => {
    const [first] = running.values();
    status?.show(first && { what: "tool", ...first, others: running.size - 1 });
  };
  return {
    event(e: RunEvent) {
      switch (e.type) {
        case "init":
          shortId = opts.ephemeral ? "" : shortIdOf(e.session_id);
          line(p.dim(
            shortId
              ? `mopac: session ${shortId} · ${e.model} · agent ${e.agent}`
              : `mopac: ${e.model} · agent ${e.agent} · ephemeral: no session is kept`,
          ));
          return;
        case "request":
          model = { what: "model", label: e.model, since: now(), chars: 0 };
          status?.show(model);
          return;
        case "text":
        case "reasoning":
          if (model) model.chars += e.delta.length;
          return;
        case "retry": {
          if (!model) return;
          // The provider's reason starts with the model's name, which the line says already.
          const reason = e.reason.replace(`${model.label}: `, "").split("\n", 1)[0];
          model = {
            what: "model",
            label: model.label,
            since: now() + e.delay_ms,
            chars: 0,
            retry: { attempt: e.attempt, reason: reason.slice(0, 80) },
          };
          status?.show(model);
          return;
        }
        case "turn":
          model = undefined;
          status?.show(undefined);
          return;
        case "tool_call": {
          const detail = toolDetail(e.input);
          const shown = opts.verbose ? JSON.stringify(e.input) : detail;
          line(`${p.dim("→")} ${p.bold(e.name)}${shown ? ` ${shown}` : ""}`);
          running.set(e.id, { name: e.name, detail, since: now() });
          showTools();
          return;
        }
        case "tool_result": {
          running.delete(e.id);
          const took = p.dim(seconds(e.duration_ms));
          if (e.denied) line(`${p.dim("←")} ${e.name} ${p.yellow("denied")} · ${e.output}`);
          else if (e.is_error) {
            line(`${p.dim("←")} ${e.name} ${p.red("error")} · ${took} · ${firstLine(e.output)}`);
          } else line(`${p.dim("←")} ${e.name} ${p.green("ok")} · ${took}`);
          showTools();
          return;
        }
        case "summarized":
          line(p.dim(`mopac: context summarized (${e.tokens_before} tokens before)`));
          return;
        case "result": {
          status?.close();
          const id = shortId || (e.session_id && !opts.ephemeral ? shortIdOf(e.session_id) : "");
          if (id) {
            const how = e.subtype === "success" ? "done" : `ended: ${e.subtype}`;
            const turns = `${e.num_turns} turn${e.num_turns === 1 ? "" : "s"}`;
            const cost = `$${e.cost_usd.toFixed(4)}`;
            line(
              p.dim(`mopac: session ${id} ${how} · ${turns} · ${seconds(e.duration_ms)} · ${cost}`),
            );
          }
          // Part of the error message, so said even with -q.
          if (id && opts.lines && RESUMABLE.has(e.subtype)) {
            io.err(`hint: resume with mopac run -s ${id} "…"\n`);
          }
          return;
        }
        default:
          return;
      }
    },
  };
}

/** Endings worth resuming from: the run was stopped, not wrong. */
const RESUMABLE = new Set(["cancelled", "error_max_turns", "error_budget"]);

/** Argument keys that say best what a call does, in order. */
const DETAIL_KEYS = ["command", "file_path", "path", "pattern", "url", "query", "prompt"];

/** One short line about a call's input: its command, file, pattern, … */
export function toolDetail(input: unknown, max = 80): string {
  let text = "";
  if (typeof input === "string") text = input;
  else if (input && typeof input === "object" && !Array.isArray(input)) {
    const obj = input as Record<string, unknown>;
    const key = DETAIL_KEYS.find((k) => typeof obj[k] === "string") ??
      Object.keys(obj).find((k) => typeof obj[k] === "string");
    if (key) text = obj[key] as string;
  }
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

function firstLine(s: string): string {
  const line = s.split("\n", 1)[0];
  return line.length > 200 ? line.slice(0, 200) + "…" : line;
}

/** A duration as "0.3s", "12.0s", "1m05s". */
export function seconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
