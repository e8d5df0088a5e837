/**
 * Request validation of the strict fake OpenAI server: the checks api.openai.com makes on a
 * chat-completions body, with its error texts, so a client bug that the real API would refuse
 * (an unanswered tool call, a bad tool name, arguments that are not JSON…) fails a test too.
 */
import type { OpenAIErrorObject } from "./fake_openai_types.ts";
import {
  emptyArray,
  fail,
  functionOf,
  Invalid,
  isObject,
  missing,
  NOT_JSON_MESSAGE,
  objectAt,
  wrongType,
} from "./fake_openai_errors.ts";
import { checkMessage, checkToolCallPairing } from "./fake_openai_validate_messages.ts";

export { apiError } from "./fake_openai_errors.ts";

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
