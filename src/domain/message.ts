/**
 * The conversation model shared by the provider, the session store and the agent
 * loop. A message is a role plus parts; the session stores exactly this shape
 * (DESIGN §6) and the provider turns it into chat-completions messages. The unions
 * come from `as const` lists so that readers of stored records check against the
 * same values the types allow.
 */
import type { Usage } from "./usage.ts";

/** Every role a message can have. */
export const ROLES = ["system", "user", "assistant", "tool"] as const;
export type Role = typeof ROLES[number];

export interface TextPart {
  type: "text";
  text: string;
}

/** Model reasoning. `details` keeps `reasoning_details` entries verbatim for providers that want them back. */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  details?: unknown[];
}

/** A tool call as the model made it; `input` is the raw JSON text of the arguments. */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  input: string;
}

export interface ImagePart {
  type: "image";
  mime_type: string;
  /** base64 */
  data: string;
}

export interface ToolResultPart {
  type: "tool_result";
  tool_call_id: string;
  name: string;
  content: string;
  is_error: boolean;
  /** Set when the permission gate refused the call. */
  denied?: boolean;
  images?: ImagePart[];
}

/** Why a message ended: the provider's reasons, plus `error` and `cancelled` for ours. */
export const FINISH_REASONS = [
  "stop",
  "tool_calls",
  "length",
  "content_filter",
  "error",
  "cancelled",
] as const;
export type FinishReason = typeof FINISH_REASONS[number];

/** Ends a message; only a finish part sets `finished_at`. */
export interface FinishPart {
  type: "finish";
  reason: FinishReason;
  at: number;
  message?: string;
}

export type Part =
  | TextPart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | ImagePart
  | FinishPart;

export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  created_at: number;
  updated_at: number;
  finished_at?: number;
  /** `provider/model` that wrote an assistant message. */
  model?: string;
  usage?: Usage;
  cost_usd?: number;
}

/** A tool as offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** The text parts joined; works on a message or a provider turn alike. */
export function textOf(m: { parts: readonly Part[] }): string {
  return m.parts.filter((p): p is TextPart => p.type === "text").map((p) => p.text).join("");
}

export function toolCallsOf(m: { parts: readonly Part[] }): ToolCallPart[] {
  return m.parts.filter((p): p is ToolCallPart => p.type === "tool_call");
}

/** A user message of one text part. */
export function userMessage(id: string, text: string, now: number): Message {
  return { id, role: "user", parts: [{ type: "text", text }], created_at: now, updated_at: now };
}
