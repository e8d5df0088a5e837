/**
 * Keys mopac accepts so that a crush config loads, and then does not use (crush's
 * TUI, LSP and service settings, `aws_auth_refresh`, hook events other than
 * PreToolUse). They are the schema's keys described as "crush; ignored", found by
 * walking the schema, so the list cannot drift from it. `config show --sources` lists
 * them apart, and `run -v` names them.
 */
import type { JsonPath } from "./jsonc.ts";
import { ConfigSchema } from "./schema.ts";

/** Schema paths of ignored keys; `*` stands for any record key. */
function ignoredPatterns(): string[][] {
  const out: string[][] = [];
  // deno-lint-ignore no-explicit-any
  const walk = (schema: any, path: string[]) => {
    const def = schema?._zod?.def;
    if (!def) return;
    if (/^crush; (accepted and )?ignored/.test(schema.description ?? "")) {
      out.push(path);
      return;
    }
    switch (def.type) {
      case "object":
        for (const [key, value] of Object.entries(def.shape)) walk(value, [...path, key]);
        break;
      case "optional":
      case "default":
      case "nullable":
        walk(def.innerType, path);
        break;
      case "pipe":
        walk(def.in, path);
        break;
      case "record":
        walk(def.valueType, [...path, "*"]);
        break;
      case "lazy":
        walk(def.getter(), path);
        break;
    }
  };
  walk(ConfigSchema, []);
  return out;
}

let patterns: string[][] | undefined;

/** The ignored key that `path` is, or lies under; undefined for a key mopac uses. */
export function ignoredKeyOf(path: JsonPath): JsonPath | undefined {
  patterns ??= ignoredPatterns();
  for (const pattern of patterns) {
    if (path.length < pattern.length) continue;
    if (pattern.every((seg, i) => seg === "*" || seg === path[i])) {
      return path.slice(0, pattern.length);
    }
  }
  return undefined;
}

/** Each ignored key present in `leaves`, once, with the source of its first leaf. */
export function ignoredKeys(
  leaves: { path: JsonPath; source: string }[],
): { path: JsonPath; source: string }[] {
  const seen = new Map<string, { path: JsonPath; source: string }>();
  for (const leaf of leaves) {
    const key = ignoredKeyOf(leaf.path);
    if (key && !seen.has(key.join("."))) {
      seen.set(key.join("."), { path: key, source: leaf.source });
    }
  }
  return [...seen.values()];
}
