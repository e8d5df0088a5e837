/**
 * Read-time repair: makes stored history a valid chat-completions request before it is
 * sent, whatever a crash or cancel left behind. The stored history is not touched (a
 * pure function; messages it does not change are passed through as they are).
 *
 * The invariants (OpenAI's, the strictest of the compatible APIs):
 * - every `tool` message answers a call of the assistant message its block follows;
 * - every call of an assistant message is answered before the next non-tool message;
 * - an assistant message has text or tool calls; call ids are unique; arguments are JSON.
 */
import type { Message, Part, ToolCallPart, ToolResultPart } from "../domain/message.ts";

export const INTERRUPTED_RESULT = "Tool execution was interrupted before it returned a result.";

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function repairForRequest(messages: Message[]): Message[] {
  const out: Message[] = [];
  const usedCallIds = new Set<string>();
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (m.role === "tool") {
      // Not right after an assistant message with calls: answers nothing we send.
      i++;
      continue;
    }
    if (m.role !== "assistant") {
      const cleaned = dropParts(m, (p) => p.type === "tool_call" || p.type === "tool_result");
      if (cleaned.parts.some((p) => p.type === "text" || p.type === "image")) out.push(cleaned);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < messages.length && messages[j].role === "tool") j++;
    const block = messages.slice(i + 1, j);
    i = j;

    const calls: ToolCallPart[] = [];
    const parts: Part[] = [];
    let changed = false;
    for (const p of m.parts) {
      if (p.type === "tool_result") {
        changed = true;
        continue;
      }
      if (p.type !== "tool_call") {
        parts.push(p);
        continue;
      }
      if (!p.id || usedCallIds.has(p.id) || !TOOL_NAME.test(p.name)) {
        changed = true; // unanswerable: no id, a duplicate id, or a name the API refuses
        continue;
      }
      usedCallIds.add(p.id);
      const call = validJson(p.input) ? p : { ...p, input: "{}" };
      if (call !== p) changed = true;
      calls.push(call);
      parts.push(call);
    }
    const hasText = parts.some((p) => p.type === "text" && p.text.trim() !== "");
    if (!hasText && calls.length === 0) continue; // empty (cancelled, cut, or reasoning only)
    out.push(changed ? { ...m, parts } : m);
    if (calls.length > 0) out.push(...answer(m, calls, block));
  }
  return out;
}

/** The tool messages of a block, keeping only first answers to `calls`, plus the missing ones. */
function answer(assistant: Message, calls: ToolCallPart[], block: Message[]): Message[] {
  const open = new Map(calls.map((c) => [c.id, c]));
  const kept: Message[] = [];
  for (const tm of block) {
    const cleaned = dropParts(tm, (p) => {
      if (p.type !== "tool_result" || !open.has(p.tool_call_id)) return true;
      open.delete(p.tool_call_id);
      return false;
    });
    if (cleaned.parts.length > 0) kept.push(cleaned);
  }
  if (open.size === 0) return kept;
  const missing = [...open.values()].map(interrupted);
  const last = kept.at(-1);
  if (last) kept[kept.length - 1] = { ...last, parts: [...last.parts, ...missing] };
  else {
    kept.push({
      id: `${assistant.id}-interrupted`,
      role: "tool",
      parts: missing,
      created_at: assistant.updated_at,
      updated_at: assistant.updated_at,
    });
  }
  return kept;
}

function interrupted(call: ToolCallPart): ToolResultPart {
  return {
    type: "tool_result",
    tool_call_id: call.id,
    name: call.name,
    content: INTERRUPTED_RESULT,
    is_error: true,
  };
}

/** The message without the parts `drop` selects (the same object when none is dropped). */
function dropParts(m: Message, drop: (p: Part) => boolean): Message {
  const parts = m.parts.filter((p) => !drop(p));
  return parts.length === m.parts.length ? m : { ...m, parts };
}

function validJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
