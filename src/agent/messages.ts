/** Reading and making messages: the text of one, its tool calls, a user message. */
import type { Message, Part, TextPart, ToolCallPart } from "../domain/message.ts";

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
