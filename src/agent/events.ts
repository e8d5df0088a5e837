/**
 * Events of a run, in the order a consumer sees them. The stream-json renderer
 * prints them as they are (plus `"v":1`); the text renderer picks what it needs.
 */
import type { Usage } from "../domain/usage.ts";
import type { Denial } from "../domain/tool_records.ts";
import type { McpServerStatus } from "../mcp/status.ts";

export type { McpServerStatus };

export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_budget"
  | "error_gate"
  | "error_agent"
  | "error_tool"
  | "cancelled";

export interface InitEvent {
  type: "init";
  session_id: string;
  model: string;
  agent: string;
  cwd: string;
  tools: string[];
  mcp_servers: McpServerStatus[];
}

export interface ResultEvent {
  type: "result";
  subtype: ResultSubtype;
  is_error: boolean;
  exit_code: number;
  result: string;
  session_id: string;
  num_turns: number;
  usage: Usage;
  cost_usd: number;
  duration_ms: number;
  denials: Denial[];
  /** The final answer as JSON, with `--output-schema`. */
  structured_output?: unknown;
  /** Why the run ended, when it was not a success. */
  error?: string;
}

export type AgentEvent =
  | InitEvent
  | { type: "text"; delta: string; message_id: string }
  | { type: "reasoning"; delta: string; message_id: string }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | {
    type: "tool_result";
    id: string;
    name: string;
    is_error: boolean;
    denied: boolean;
    output: string;
  }
  | { type: "retry"; attempt: number; delay_ms: number; reason: string; message_id: string }
  | { type: "summarized"; summary_message_id: string; tokens_before: number }
  | { type: "turn"; n: number; usage: Usage; cost_usd: number }
  | ResultEvent;
