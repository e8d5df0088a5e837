/**
 * Validation of the merged config. Each zod issue is traced back through the
 * source map to the layer that supplied the value and, for files, to the
 * `file:line:col` of the key or value, so the error points where the fix goes.
 */
import type { z } from "zod";
import { ConfigError } from "../util/errors.ts";
import { type Config, configJsonSchema, ConfigSchema } from "./schema.ts";
import { closest } from "../util/similar.ts";
import { dotted, type JsonPath, locate } from "./jsonc.ts";
import type { Layer } from "./layers.ts";
import type { SourceMap } from "./merge.ts";

interface Problem {
  message: string;
  where: string;
  layer: number;
  offset: number;
}

const MAX_LISTED = 5;

export function validateMerged(merged: unknown, layers: Layer[], sources: SourceMap): Config {
  // jitless: zod would compile a parser for each object shape with `new Function` on
  // the first parse, 30-100 ms here; the config is parsed once per run.
  const result = ConfigSchema.safeParse(merged, { jitless: true });
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => describe(issue, layers, sources));
  problems.sort((a, b) => a.layer - b.layer || a.offset - b.offset);
  const [first, ...rest] = problems;
  let message = first.message;
  if (rest.length > 0) {
    const listed = rest.slice(0, MAX_LISTED).map((p) => `\n  ${p.where}: ${p.message}`).join("");
    const more = rest.length > MAX_LISTED ? `\n  … and ${rest.length - MAX_LISTED} more` : "";
    message += `\n${rest.length} more problem${rest.length > 1 ? "s" : ""}:${listed}${more}`;
  }
  return fail(message, first.where);
}

function fail(message: string, where: string): never {
  throw new ConfigError(message, {
    where,
    hint: "`mopac schema` prints every key the config accepts",
  });
}

function describe(issue: z.core.$ZodIssue, layers: Layer[], sources: SourceMap): Problem[] {
  const path = issue.path.filter((p) => typeof p !== "symbol") as JsonPath;
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const at = [...path, key];
      const near = closest(key, knownKeysAt(path));
      const guess = near.length > 0
        ? ` (did you mean ${near.map((k) => `"${k}"`).join(" or ")}?)`
        : "";
      return {
        ...where(at, true, layers, sources),
        message: `unknown key "${dotted(at)}"${guess}`,
      };
    });
  }
  const text = issue.code === "invalid_union"
    ? "value has the wrong type"
    : issue.message.replace(/^Invalid input: /, "");
  const subject = path.length > 0 ? `${dotted(path)}: ` : "";
  return [{ ...where(path, false, layers, sources), message: subject + text }];
}

function where(
  path: JsonPath,
  atKey: boolean,
  layers: Layer[],
  sources: SourceMap,
): { where: string; layer: number; offset: number } {
  const found = sources.find(path);
  if (!found) return { where: "config", layer: -1, offset: 0 };
  const layer = layers[found.ref.layer];
  if (!layer.parsed) return { where: layer.name, layer: found.ref.layer, offset: 0 };
  const spot = locate(layer.parsed, [...found.ref.path, ...found.rest], atKey);
  return { ...spot, layer: found.ref.layer };
}

type JsonSchemaNode = {
  $ref?: string;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: JsonSchemaNode | boolean;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
  allOf?: JsonSchemaNode[];
};

/** The keys the config accepts in the object at `path` (for "did you mean"). */
export function knownKeysAt(path: JsonPath): string[] {
  const root = configJsonSchema() as JsonSchemaNode & { $defs?: Record<string, JsonSchemaNode> };
  const expand = (n: JsonSchemaNode): JsonSchemaNode[] => {
    const target = n.$ref ? root.$defs?.[n.$ref.split("/").at(-1)!] : n;
    if (!target) return [];
    return [
      target,
      ...[...target.anyOf ?? [], ...target.oneOf ?? [], ...target.allOf ?? []]
        .flatMap(expand),
    ];
  };
  let nodes: JsonSchemaNode[] = [root];
  for (const step of path) {
    nodes = nodes.flatMap(expand).flatMap((n) => {
      if (typeof step === "number") return n.items ? [n.items] : [];
      const named = n.properties?.[step];
      if (named) return [named];
      return typeof n.additionalProperties === "object" ? [n.additionalProperties] : [];
    });
  }
  const keys = nodes.flatMap(expand).flatMap((n) => Object.keys(n.properties ?? {}));
  return [...new Set(keys)];
}
