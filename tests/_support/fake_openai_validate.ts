/**
 * What a request to the strict fake OpenAI server must be: the checks api.openai.com
 * makes on a chat-completions body, with its error objects and wording ("Missing required
 * parameter", "Invalid type for", "empty array"…), so a client bug the real API would
 * refuse (an unanswered tool call, a bad tool name, arguments that are not JSON…) fails a
 * test too. Also the types of what was sent.
 */

/** OpenAI's error object: the value of `{"error": ...}` in every error body. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** A chat message as the client sent it (loosely typed: the validator checks the details). */
export interface ChatMessageIn {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: unknown;
  tool_calls?: {
    id: string;
    type: "function";
    function: { name: string; arguments: string };
  }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A request body that passed validation. */
export interface ParsedRequest {
  model: string;
  messages: ChatMessageIn[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: {
    type: "function";
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }[];
  [key: string]: unknown;
}

export function apiError(
  message: string,
  param: string | null = null,
  code: string | null = null,
  type = "invalid_request_error",
): OpenAIErrorObject {
  return { message, type, param, code };
}

/** api.openai.com's answer to a body that is not a JSON object. */
const NOT_JSON_MESSAGE = "We could not parse the JSON body of your request. (HINT: This " +
  "likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON " +
  "payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix " +
  "this, please contact us through our help center at help.openai.com.)";

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

class Invalid extends Error {
  constructor(readonly error: OpenAIErrorObject) {
    super(error.message);
  }
}

function fail(message: string, param: string | null, code: string | null = null): never {
  throw new Invalid(apiError(message, param, code));
}

/** "a string", "an object", "null"… as OpenAI words the type it got. */
function got(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a decimal";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function missing(param: string): never {
  fail(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");
}

function wrongType(param: string, expected: string, v: unknown): never {
  fail(
    `Invalid type for '${param}': expected ${expected}, but got ${got(v)} instead.`,
    param,
    "invalid_type",
  );
}

function emptyArray(param: string): never {
  fail(
    `Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
    param,
    "empty_array",
  );
}

function objectAt(v: unknown, param: string): Record<string, unknown> {
  if (!isObject(v)) wrongType(param, "an object", v);
  return v;
}

function checkName(v: unknown, param: string): void {
  if (v === undefined || v === null) missing(param);
  if (typeof v !== "string") wrongType(param, "a string", v);
  if (v.length > 64) {
    fail(
      `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${v.length} instead.`,
      param,
      "string_above_max_length",
    );
  }
  if (!NAME_PATTERN.test(v)) {
    fail(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      "invalid_value",
    );
  }
}

/**
 * The `function` object of a `{type: "function", function: {name, …}}` entry (a tool
 * of the request, or a tool call of an assistant message), its type and name checked.
 */
function functionOf(v: unknown, param: string): Record<string, unknown> {
  const entry = objectAt(v, param);
  if (entry.type === undefined) missing(`${param}.type`);
  if (entry.type !== "function") {
    fail(
      `Invalid value: '${entry.type}'. Supported values are: 'function'.`,
      `${param}.type`,
      "invalid_value",
    );
  }
  if (entry.function === undefined) missing(`${param}.function`);
  const fn = objectAt(entry.function, `${param}.function`);
  checkName(fn.name, `${param}.function.name`);
  return fn;
}

const KNOWN_PARAMS = new Set(
  ("model messages stream stream_options tools tool_choice parallel_tool_calls max_tokens " +
    "max_completion_tokens temperature top_p n stop presence_penalty frequency_penalty " +
    "logit_bias logprobs top_logprobs user seed response_format reasoning_effort service_tier " +
    "store metadata modalities audio prediction web_search_options verbosity prompt_cache_key " +
    "safety_identifier functions function_call").split(" "),
);

/** Returns null when the body is a valid chat-completions request, else OpenAI's error. */
export function validateChatRequest(
  body: unknown,
  opts: { rejectUnknownParams?: boolean } = {},
): OpenAIErrorObject | null {
  try {
    checkBody(body, opts.rejectUnknownParams ?? false);
    return null;
  } catch (e) {
    if (e instanceof Invalid) return e.error;
    throw e;
  }
}

function checkBody(body: unknown, rejectUnknown: boolean): void {
  if (!isObject(body)) fail(NOT_JSON_MESSAGE, null);
  if (rejectUnknown) {
    const unknown = Object.keys(body).find((k) => !KNOWN_PARAMS.has(k));
    if (unknown) fail(`Unrecognized request argument supplied: ${unknown}`, null);
  }
  if (typeof body.model !== "string" || body.model === "") {
    fail("you must provide a model parameter", null);
  }
  const messages = body.messages;
  if (messages === undefined) missing("messages");
  if (!Array.isArray(messages)) wrongType("messages", "an array of objects", messages);
  if (messages.length === 0) emptyArray("messages");
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    wrongType("stream", "a boolean", body.stream);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    fail(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      "stream_options",
    );
  }
  const hasTools = body.tools !== undefined && body.tools !== null;
  if (hasTools) checkTools(body.tools);
  for (const key of ["tool_choice", "parallel_tool_calls"]) {
    if (!hasTools && body[key] !== undefined && body[key] !== null) {
      fail(`Invalid value for '${key}': '${key}' is only allowed when 'tools' are specified.`, key);
    }
  }
  messages.forEach(checkMessage);
  checkToolCallPairing(messages as Record<string, unknown>[]);
}

function checkTools(tools: unknown): void {
  if (!Array.isArray(tools)) wrongType("tools", "an array of objects", tools);
  if (tools.length === 0) emptyArray("tools");
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    const p = `tools[${i}]`;
    const fn = functionOf(t, p);
    if (fn.description !== undefined && typeof fn.description !== "string") {
      wrongType(`${p}.function.description`, "a string", fn.description);
    }
    if (fn.parameters !== undefined) {
      const params = objectAt(fn.parameters, `${p}.function.parameters`);
      if (params.type !== undefined && params.type !== "object") {
        fail(
          `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${params.type}"'.`,
          `${p}.function.parameters`,
          "invalid_function_parameters",
        );
      }
    }
    const name = fn.name as string;
    if (seen.has(name)) {
      fail(
        `Invalid 'tools': duplicate function name '${name}'. Tool names must be unique.`,
        "tools",
        "invalid_value",
      );
    }
    seen.add(name);
  });
}

// The messages array.

const ROLES = ["system", "developer", "user", "assistant", "tool"];

function checkMessage(m: unknown, i: number): void {
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
function checkToolCallPairing(messages: Record<string, unknown>[]): void {
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
