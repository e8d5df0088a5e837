/**
 * The last word on a tool's input schema before it goes to a model: after
 * normalisation (schema.ts) it must still be a valid JSON Schema whose references
 * resolve, because an endpoint rejects the whole request, every other tool included,
 * for one invalid schema. A tool that fails here is dropped with a warning.
 *
 * Checked against the 2020-12 meta-schema rather than compiled: compiling costs ~4 ms
 * a tool, which a server with hundreds of tools would add to every start.
 */
import { Ajv2020 } from "ajv/dist/2020.js";

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
