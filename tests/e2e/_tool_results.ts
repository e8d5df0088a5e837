/** What the model got back from its tool calls, as the fake server received it. */
import type { ChatMessageIn, ParsedRequest } from "../_support/fake_openai.ts";

/** The text of a tool message (a string, or text parts). */
export function contentOf(m: ChatMessageIn): string {
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) {
    return m.content.map((p) => (p as { text?: string }).text ?? "").join("");
  }
  return "";
}

/** The tool results in a request, in order. */
export function toolResults(req: ParsedRequest): string[] {
  return req.messages.filter((m) => m.role === "tool").map(contentOf);
}

/** The last tool result a request carries ("" when none). */
export function lastResult(req: ParsedRequest): string {
  return toolResults(req).at(-1) ?? "";
}
