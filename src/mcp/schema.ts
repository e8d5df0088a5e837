/**
 * Makes an MCP tool's input schema acceptable to strict OpenAI-compatible endpoints.
 * They want a plain object schema at the top: `type: "object"`, a `properties` map,
 * and none of `$schema`, `oneOf`/`anyOf`/`allOf`, `enum`, `not` there. Servers send
 * all of these (zod-generated schemas carry `$schema`; unions become `anyOf`).
 * Nested schemas are left as the server wrote them, except for two repairs that
 * validators commonly demand: arrays get `items`, objects get `properties`.
 */
import { Ajv2020 } from "ajv/dist/2020.js";

type Schema = Record<string, unknown>;

const DROPPED_TOP_KEYS = ["$schema", "$id", "oneOf", "anyOf", "allOf", "not", "enum", "const"];

function isObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** The object-shaped variants of a top-level union, merged into one object schema. */
function mergeVariants(variants: unknown[], mode: "any" | "all"): Schema {
  const properties: Schema = {};
  let required: string[] | undefined;
  for (const variant of variants) {
    if (!isObject(variant)) continue;
    if (isObject(variant.properties)) {
      for (const [key, value] of Object.entries(variant.properties)) {
        if (!(key in properties)) properties[key] = value;
      }
    }
    const req = stringList(variant.required);
    if (mode === "all") required = [...new Set([...(required ?? []), ...req])];
    // For a choice between variants only what every variant requires is required.
    else required = required === undefined ? req : required.filter((r) => req.includes(r));
  }
  return { properties, required: required ?? [] };
}

/** A top-level `$ref` into the schema's own definitions (pydantic writes these), inlined. */
function inlineTopRef(src: Schema): Schema {
  const ref = src.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return src;
  let target: unknown = src;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    target = isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined;
  }
  // A dangling reference stays, and schema_check.ts rejects it.
  if (!isObject(target) || "$ref" in target) return src;
  const { $ref: _ref, ...rest } = src;
  return { ...rest, ...target };
}

export function normalizeInputSchema(input: unknown): Schema {
  const src: Schema = inlineTopRef(isObject(input) ? structuredClone(input) : {});
  let properties: Schema = isObject(src.properties) ? { ...src.properties } : {};
  let required = stringList(src.required);

  for (const [key, mode] of [["allOf", "all"], ["anyOf", "any"], ["oneOf", "any"]] as const) {
    const variants = src[key];
    if (!Array.isArray(variants) || variants.length === 0) continue;
    const merged = mergeVariants(variants, mode);
    properties = { ...(merged.properties as Schema), ...properties };
    const mergedReq = merged.required as string[];
    required = [...new Set([...required, ...mergedReq])];
  }

  const out: Schema = {};
  for (const [key, value] of Object.entries(src)) {
    if (!DROPPED_TOP_KEYS.includes(key)) out[key] = value;
  }
  out.type = "object";
  for (const [key, value] of Object.entries(properties)) properties[key] = repair(value);
  out.properties = properties;
  const known = required.filter((r) => r in properties);
  if (known.length > 0) out.required = known;
  else delete out.required;
  return out;
}

/** The two nested repairs; recursion follows properties, items and combinators. */
function repair(node: unknown, depth = 0): unknown {
  if (!isObject(node) || depth > 32) return node;
  const out: Schema = { ...node };
  // A `required` that is not a list of names is a common slip that endpoints reject.
  if (out.required !== undefined) {
    const names = stringList(out.required);
    if (names.length > 0) out.required = names;
    else delete out.required;
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes("array") && out.items === undefined) out.items = {};
  if (types.includes("object") && out.properties === undefined && !out.additionalProperties) {
    out.properties = {};
  }
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, repair(v, depth + 1)]),
    );
  }
  if (out.items !== undefined) {
    out.items = Array.isArray(out.items)
      ? out.items.map((v) => repair(v, depth + 1))
      : repair(out.items, depth + 1);
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(out[key])) {
      out[key] = (out[key] as unknown[]).map((v) => repair(v, depth + 1));
    }
  }
  return out;
}

/*
 * The last word on a tool's input schema before it goes to a model: after
 * normalisation (schema.ts) it must still be a valid JSON Schema whose references
 * resolve, because an endpoint rejects the whole request, every other tool included,
 * for one invalid schema. A tool that fails here is dropped with a warning.
 *
 * Checked against the 2020-12 meta-schema rather than compiled: compiling costs ~4 ms
 * a tool, which a server with hundreds of tools would add to every start.
 */
let ajv: Ajv2020 | undefined;

/** Why the schema would be refused, or undefined when it is fine. */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  // Not strict: servers use keywords and formats of their own, which endpoints ignore.
  ajv ??= new Ajv2020({ strict: false, validateFormats: false });
  if (!ajv.validateSchema(schema)) return `${ajv.errorsText(ajv.errors)}`.slice(0, 300);
  return danglingRef(schema, schema);
}

/** Keywords whose values are data, not schemas: a "$ref" in them is just a string. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** The first `$ref` that does not point into the schema itself, described. */
function danglingRef(root: unknown, node: unknown, depth = 0): string | undefined {
  if (typeof node !== "object" || node === null || depth > 64) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === "$ref" && typeof value === "string" && !resolves(root, value)) {
      return `the reference ${JSON.stringify(value)} does not resolve within the schema`;
    }
    const found = danglingRef(root, value, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function resolves(root: unknown, ref: string): boolean {
  if (ref === "#") return true;
  if (!ref.startsWith("#/")) return false;
  let target: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof target !== "object" || target === null || !Object.hasOwn(target, key)) return false;
    target = (target as Record<string, unknown>)[key];
  }
  return true;
}
