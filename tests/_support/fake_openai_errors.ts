/**
 * OpenAI's error shape and the wording of its validation errors ("Missing required parameter",
 * "Invalid type for", "empty array"…), shared by the fake server's request checks.
 */
import type { OpenAIErrorObject } from "./fake_openai_types.ts";

export function apiError(
  message: string,
  param: string | null = null,
  code: string | null = null,
  type = "invalid_request_error",
): OpenAIErrorObject {
  return { message, type, param, code };
}

/** api.openai.com's answer to a body that is not a JSON object. */
export const NOT_JSON_MESSAGE = "We could not parse the JSON body of your request. (HINT: This " +
  "likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON " +
  "payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix " +
  "this, please contact us through our help center at help.openai.com.)";

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

export class Invalid extends Error {
  constructor(readonly error: OpenAIErrorObject) {
    super(error.message);
  }
}

export function fail(message: string, param: string | null, code: string | null = null): never {
  throw new Invalid(apiError(message, param, code));
}

/** "a string", "an object", "null"… as OpenAI words the type it got. */
export function got(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a decimal";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function missing(param: string): never {
  fail(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");
}

export function wrongType(param: string, expected: string, v: unknown): never {
  fail(
    `Invalid type for '${param}': expected ${expected}, but got ${got(v)} instead.`,
    param,
    "invalid_type",
  );
}

export function emptyArray(param: string): never {
  fail(
    `Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
    param,
    "empty_array",
  );
}

export function objectAt(v: unknown, param: string): Record<string, unknown> {
  if (!isObject(v)) wrongType(param, "an object", v);
  return v;
}

export function checkName(v: unknown, param: string): void {
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
export function functionOf(v: unknown, param: string): Record<string, unknown> {
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
