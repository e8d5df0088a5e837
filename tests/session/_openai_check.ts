/**
 * The chat-completions invariants a strict server enforces, checked on our Message[]
 * as the provider will send it (each tool_result part becomes one `tool` message).
 * Throws an Error naming the first violation.
 */
import type { Message } from "../../src/domain/message.ts";

export function checkOpenAiSequence(messages: Message[]): void {
  const seen = new Set<string>();
  let open: Set<string> | undefined;
  const fail = (i: number, why: string): never => {
    throw new Error(`messages[${i}]: ${why}`);
  };
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      if (!open) fail(i, "tool message not preceded by an assistant message with tool_calls");
      if (m.parts.length === 0) fail(i, "tool message without results");
      for (const p of m.parts) {
        if (p.type !== "tool_result") fail(i, `a ${p.type} part in a tool message`);
        else if (!open!.delete(p.tool_call_id)) {
          fail(i, `tool result ${p.tool_call_id} answers no open call`);
        }
      }
      return;
    }
    if (open && open.size > 0) fail(i, `tool_call_ids not answered: ${[...open].join(", ")}`);
    open = undefined;
    if (m.parts.some((p) => p.type === "tool_result")) {
      fail(i, `tool_result in a ${m.role} message`);
    }
    if (m.role !== "assistant") {
      if (m.parts.some((p) => p.type === "tool_call")) fail(i, `tool_call in a ${m.role} message`);
      if (!m.parts.some((p) => p.type === "text" || p.type === "image")) fail(i, "no content");
      return;
    }
    const calls = m.parts.filter((p) => p.type === "tool_call");
    const text = m.parts.some((p) => p.type === "text" && p.text.trim() !== "");
    if (!text && calls.length === 0) fail(i, "assistant message without content or tool_calls");
    for (const c of calls) {
      if (c.type !== "tool_call") continue;
      if (!c.id || seen.has(c.id)) fail(i, `missing or repeated tool_call id ${c.id}`);
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(c.name)) fail(i, `invalid function name ${c.name}`);
      try {
        JSON.parse(c.input);
      } catch {
        fail(i, `arguments of ${c.id} are not JSON`);
      }
      seen.add(c.id);
    }
    if (calls.length > 0) open = new Set(calls.map((c) => (c.type === "tool_call" ? c.id : "")));
  });
  if (open && open.size > 0) {
    fail(messages.length, `tool_call_ids not answered: ${[...open].join(", ")}`);
  }
}
