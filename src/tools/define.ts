/**
 * How a built-in tool is defined: a name, a description, a zod schema of its
 * arguments, and what it does. From the schema come what the model is offered (a
 * plain JSON Schema) and the check of its arguments (a parse that throws
 * ToolInputError naming each bad field, so the model can correct its call); `access`
 * and `run` receive the parsed arguments with their type.
 */
import * as z from "zod";
import { ToolInputError } from "../util/errors.ts";
import { nearMisses } from "../util/similar.ts";
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
  /** See Tool.warm: a head start while the model's call streams in. */
  warm?(): void | Promise<void>;
}

/**
 * A Tool from its definition, typed by its schema.
 *
 * @example
 * ```ts
 * import * as z from "zod";
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
  const parameters = jsonSchemaOf(schema);
  return {
    ...rest,
    parameters,
    parse: (input) => parseToolInput(schema, input, parameters),
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
 * runner prefixes the tool's name). An argument the schema does not name is a
 * problem too, with the accepted names and the likely intended one: dropping it
 * quietly would let the model believe a filter or time limit it asked for applied.
 */
export function parseToolInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  parameters: Record<string, unknown> = jsonSchemaOf(schema),
): z.output<T> {
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
  const unknown = unknownKeys(value, parameters, []);
  // jitless: a compiled parser (zod's `new Function` fast path) costs more to build
  // than a run's few calls of a tool save.
  const result = schema.safeParse(value, { jitless: true });
  if (result.success && unknown.length === 0) return result.data;
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => formatIssue(issue, value));
  throw new ToolInputError([...unknown, ...problems].join("; "));
}

/** Names models bring from other harnesses, and what they mean here. */
const ALIASES: Record<string, string[]> = {
  cmd: ["command"],
  glob: ["include", "pattern"],
  file_pattern: ["include"],
  filename: ["file_path"],
  filepath: ["file_path"],
  cwd: ["working_dir", "path"],
  workdir: ["working_dir"],
  dir: ["path", "working_dir"],
  directory: ["path", "working_dir"],
};

/**
 * Keys of `value` that the JSON Schema does not name, at any depth it describes
 * with plain `properties` / `items` (anything fancier is left to the schema).
 */
function unknownKeys(
  value: unknown,
  schema: Record<string, unknown>,
  path: PropertyKey[],
): string[] {
  const out: string[] = [];
  if (Array.isArray(value)) {
    const items = schema.items as Record<string, unknown> | undefined;
    if (items && typeof items === "object") {
      value.forEach((v, i) => out.push(...unknownKeys(v, items, [...path, i])));
    }
    return out;
  }
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (value === null || typeof value !== "object" || !props) return out;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    return out;
  }
  const accepted = Object.keys(props);
  for (const [key, v] of Object.entries(value)) {
    const sub = props[key];
    if (sub) {
      out.push(...unknownKeys(v, sub, [...path, key]));
      continue;
    }
    const guesses = [...new Set([...(ALIASES[key] ?? []), ...nearMisses(key, accepted)])]
      .filter((g) => accepted.includes(g));
    const where = path.length === 0 ? "" : `${formatPath(path)}: `;
    const hint = guesses.length
      ? ` (did you mean ${guesses.map((g) => `"${g}"`).join(" or ")}?)`
      : "";
    out.push(
      `${where}unknown argument ${JSON.stringify(key)}${hint}; accepted: ${accepted.join(", ")}`,
    );
  }
  return out;
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
    const got = valueAt(root, issue.path);
    const bound = `${issue.inclusive === false ? "greater than" : "at least"} ${min}`;
    return `${where} must be ${bound}${typeof got === "number" ? `, got ${got}` : ""}`;
  }
  if (issue.code === "too_big") {
    const max = Number(issue.maximum);
    if (issue.origin === "array") return `${where} must have at most ${max} items`;
    if (issue.origin === "string") return `${where} must be at most ${max} characters`;
    const got = valueAt(root, issue.path);
    return `${where} must be at most ${max}${got === undefined ? "" : `, got ${String(got)}`}`;
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
