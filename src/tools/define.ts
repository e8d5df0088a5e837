/**
 * How a built-in tool is defined: a name, a description, a zod schema of its
 * arguments, and what it does. From the schema come what the model is offered (a
 * plain JSON Schema) and the check of its arguments (a parse that throws
 * ToolInputError naming each bad field, so the model can correct its call); `access`
 * and `run` receive the parsed arguments with their type.
 */
import { z } from "zod";
import { ToolInputError } from "../util/errors.ts";
import type { Access } from "../permission/types.ts";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  /** What the model reads about the tool. */
  description: string;
  /** The arguments object. */
  schema: S;
  /** What a call would touch, for the gate; omitted: nothing beyond the tool itself. */
  access?(input: z.output<S>, ctx: ToolContext): Access | Promise<Access>;
  /**
   * Does the work. Contract: throw or return `is_error` for what the model can fix
   * (both reach it as an error result); a thrown error never ends the run.
   */
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * A Tool from its definition, typed by its schema.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./define.ts";
 *
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Repeats the text",
 *   schema: z.object({ text: z.string() }),
 *   run: (input) => Promise.resolve({ content: input.text }),
 * });
 * ```
 */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<z.output<S>> {
  const { schema, ...rest } = def;
  return {
    ...rest,
    parameters: jsonSchemaOf(schema),
    parse: (input) => parseToolInput(schema, input),
  };
}

/** JSON Schema of the tool's arguments as the model sees them (input side: defaults are optional). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  // Some OpenAI-compatible servers reject the meta-schema key; it says nothing to the model.
  delete json.$schema;
  return stripNoise(json) as Record<string, unknown>;
}

/** zod writes `maximum: 2^53-1` for every int; it is noise in a prompt. */
function stripNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNoise);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    out[key] = stripNoise(v);
  }
  return out;
}

/**
 * Validates `input` (an object, or a JSON string of one) against `schema`.
 * Throws ToolInputError listing every problem as `field: what is wrong` (the
 * runner prefixes the tool's name).
 */
export function parseToolInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ToolInputError("arguments must be a JSON object, got unparsable text");
    }
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ToolInputError(`arguments must be a JSON object, got ${describe(value)}`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => formatIssue(issue, value));
  throw new ToolInputError(problems.join("; "));
}

function formatIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const where = issue.path.length === 0 ? "arguments" : formatPath(issue.path);
  if (issue.code === "invalid_type") {
    const got = valueAt(root, issue.path);
    const expected = issue.expected === "int" ? "integer" : issue.expected;
    if (got === undefined) return `${where} is required (${expected})`;
    return `${where} must be ${article(expected)}, got ${describe(got)}`;
  }
  if (issue.code === "too_small") {
    const min = Number(issue.minimum);
    if (issue.origin === "string" && min === 1) return `${where} must not be empty`;
    if (issue.origin === "array") {
      return `${where} must have at least ${min} item${min === 1 ? "" : "s"}`;
    }
    return `${where} must be ${issue.inclusive === false ? "greater than" : "at least"} ${min}`;
  }
  if (issue.code === "invalid_value") {
    return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return `${where}: ${issue.message}`;
}

function formatPath(path: PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  }
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
