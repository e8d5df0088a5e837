/**
 * What the agent loop reports while it runs, in the order a consumer sees them.
 * A run's output (`-o stream-json`) is these events between an `init` and a
 * `result` event, which the app adds (src/app/run_events.ts).
 */
import type { Usage } from "../domain/usage.ts";

export type AgentEvent =
  /** A piece of the assistant's answer as it streams. */
  | { type: "text"; delta: string; message_id: string }
  /** A piece of the model's reasoning as it streams. */
  | { type: "reasoning"; delta: string; message_id: string }
  /** The model called a tool; `input` is its arguments parsed (or the text when it is no JSON). */
  | { type: "tool_call"; id: string; name: string; input: unknown }
  /** A tool call ended; `denied` when the permission gate refused it. */
  | {
    type: "tool_result";
    id: string;
    name: string;
    is_error: boolean;
    denied: boolean;
    output: string;
  }
  /**
   * The request failed and is tried again after `delay_ms`: consumers drop what they
   * have of message `message_id`, whose next deltas start from scratch.
   */
  | { type: "retry"; attempt: number; delay_ms: number; reason: string; message_id: string }
  /** The conversation was summarized to fit the context window. */
  | { type: "summarized"; summary_message_id: string; tokens_before: number }
  /** A model response completed: turn `n`, its usage and cost. */
  | { type: "turn"; n: number; usage: Usage; cost_usd: number };
