/**
 * Checks of the `messages` array, as api.openai.com makes them: roles, required fields, content
 * parts, tool calls with JSON arguments, and every tool call answered by a `tool` message.
 */
import {
  emptyArray,
  fail,
  functionOf,
  missing,
  objectAt,
  wrongType,
} from "./fake_openai_errors.ts";

const ROLES = ["system", "developer", "user", "assistant", "tool"];

export function checkMessage(m: unknown, i: number): void {
  const p = `messages[${i}]`;
  const msg = objectAt(m, p);
  if (msg.role === undefined) missing(`${p}.role`);
  if (typeof msg.role !== "string" || !ROLES.includes(msg.role)) {
    fail(
      `Invalid value: '${msg.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
      `${p}.role`,
      "invalid_value",
    );
  }
  if (msg.role === "tool") {
    if (msg.tool_call_id === undefined || msg.tool_call_id === null) missing(`${p}.tool_call_id`);
    if (typeof msg.tool_call_id !== "string") {
      wrongType(`${p}.tool_call_id`, "a string", msg.tool_call_id);
    }
  }
  if (msg.role !== "assistant") return checkContent(msg.content, `${p}.content`, msg.role);
  const hasCalls = msg.tool_calls !== undefined && msg.tool_calls !== null;
  if (hasCalls) {
    if (!Array.isArray(msg.tool_calls)) {
      wrongType(`${p}.tool_calls`, "an array of objects", msg.tool_calls);
    }
    if (msg.tool_calls.length === 0) emptyArray(`${p}.tool_calls`);
    msg.tool_calls.forEach((tc, j) => checkToolCall(tc, `${p}.tool_calls[${j}]`));
  }
  if (msg.content !== undefined && msg.content !== null) {
    checkContent(msg.content, `${p}.content`, "assistant");
  } else if (!hasCalls) missing(`${p}.content`);
}

function checkContent(content: unknown, p: string, role: string): void {
  if (content === undefined || content === null) missing(p);
  if (typeof content === "string") return;
  if (!Array.isArray(content)) wrongType(p, "one of a string or array of objects", content);
  if (content.length === 0) emptyArray(p);
  content.forEach((part, k) => {
    const pp = `${p}[${k}]`;
    const obj = objectAt(part, pp);
    if (obj.type === undefined) missing(`${pp}.type`);
    if (obj.type === "text") {
      if (typeof obj.text !== "string") {
        obj.text === undefined
          ? missing(`${pp}.text`)
          : wrongType(`${pp}.text`, "a string", obj.text);
      }
    } else if (
      role !== "user" || !["image_url", "input_audio", "file"].includes(String(obj.type))
    ) {
      const allowed = role === "user" ? "'text', 'image_url', 'input_audio', and 'file'" : "'text'";
      fail(
        `Invalid value: '${obj.type}'. Supported values are: ${allowed}.`,
        `${pp}.type`,
        "invalid_value",
      );
    }
  });
}

function checkToolCall(tc: unknown, p: string): void {
  const call = objectAt(tc, p);
  if (call.id === undefined || call.id === null) missing(`${p}.id`);
  if (typeof call.id !== "string") wrongType(`${p}.id`, "a string", call.id);
  const fn = functionOf(call, p);
  const args = fn.arguments;
  if (args === undefined || args === null) missing(`${p}.function.arguments`);
  if (typeof args !== "string") wrongType(`${p}.function.arguments`, "a string", args);
  try {
    JSON.parse(args);
  } catch {
    fail(
      `Invalid '${p}.function.arguments': string is not valid JSON. Expected the function arguments as a JSON-encoded string.`,
      `${p}.function.arguments`,
      "invalid_value",
    );
  }
}

/** Every tool_call id answered by a `tool` message before the next non-tool message, and every
 * `tool` message answering a call of the assistant message its block follows. */
export function checkToolCallPairing(messages: Record<string, unknown>[]): void {
  let open: { index: number; ids: Set<string>; pending: Set<string> } | null = null;
  const unanswered = () => {
    if (!open || open.pending.size === 0) return;
    fail(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
        `'tool_call_id'. The following tool_call_ids did not have response messages: ${
          [...open.pending].join(", ")
        }`,
      `messages.[${open.index}].role`,
    );
  };
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      const id = m.tool_call_id as string;
      if (!open || !open.ids.has(id)) {
        fail(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      open.pending.delete(id);
      return;
    }
    unanswered();
    open = null;
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      const ids = (m.tool_calls as { id: string }[]).map((c) => c.id);
      open = { index: i, ids: new Set(ids), pending: new Set(ids) };
    }
  });
  unanswered();
}
