/**
 * What the agent loop reports while it runs, in the order a consumer sees them.
 * A run's output (`-o stream-json`) is these events between an `init` and a
 * `result` event, which the app adds (src/app/run_events.ts).
 */
import type { Usage } from "../domain/usage.ts";

/**
 * One thing that happened in the loop. Per model request: `request` as it starts,
 * `text` and `reasoning` pieces as they stream (a `retry` voids the pieces of that
 * message so far), then `turn` with its usage; then for each tool call a `tool_call`
 * and, once it ran (or was refused), its `tool_result`; `summarized` when the history
 * was compacted.
 *
 * Contract: the loop calls `emit` synchronously; it must not throw (a throw ends the run).
 *
 * @example Collecting the answer as it streams
 * ```ts
 * import type { AgentEvent } from "./events.ts";
 *
 * const texts = new Map<string, string>();
 * const emit = (e: AgentEvent) => {
 *   if (e.type === "text") texts.set(e.message_id, (texts.get(e.message_id) ?? "") + e.delta);
 *   if (e.type === "retry") texts.delete(e.message_id);
 * };
 * emit({ type: "text", delta: "Hel", message_id: "m1" });
 * emit({ type: "retry", attempt: 2, delay_ms: 500, reason: "HTTP 503", message_id: "m1" });
 * emit({ type: "text", delta: "Hello", message_id: "m1" });
 * if (texts.get("m1") !== "Hello") throw new Error("a retry starts the message over");
 * ```
 */
export type AgentEvent =
  /**
   * A model request starts: it will be turn `n` once it completes; its text streams
   * as message `message_id`; `model` is `provider/model`.
   */
  | { type: "request"; n: number; model: string; message_id: string }
  /** A piece of the assistant's answer as it streams. */
  | { type: "text"; delta: string; message_id: string }
  /** A piece of the model's reasoning as it streams. */
  | { type: "reasoning"; delta: string; message_id: string }
  /** The model called a tool; `input` is its arguments parsed (or the text when it is no JSON). */
  | { type: "tool_call"; id: string; name: string; input: unknown }
  /**
   * A tool call ended; `denied` when the permission gate refused it; `duration_ms` from
   * its `tool_call` to its end.
   */
  | {
    type: "tool_result";
    id: string;
    name: string;
    is_error: boolean;
    denied: boolean;
    output: string;
    duration_ms: number;
  }
  /**
   * The request failed and is tried again after `delay_ms`: consumers drop what they
   * have of message `message_id`, whose next deltas start from scratch. `model` is set
   * when the next attempt runs on the fallback model (`--fallback-model`).
   */
  | {
    type: "retry";
    attempt: number;
    delay_ms: number;
    reason: string;
    message_id: string;
    model?: string;
  }
  /** The conversation was summarized to fit the context window. */
  | { type: "summarized"; summary_message_id: string; tokens_before: number }
  /** A model response completed: turn `n`, its usage and cost. */
  | { type: "turn"; n: number; usage: Usage; cost_usd: number };
