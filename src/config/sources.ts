/**
 * What `config show --sources` prints: every leaf of the merged config and where it
 * came from, then what a project narrows and what of it was ignored.
 */
import { type JsonPath, parsePath } from "./jsonc.ts";
import type { SourceLine } from "./loaded.ts";
import { isPlainObject } from "./merge.ts";
import type { IgnoredKey, LimitCaps, Narrowing } from "./narrowing.ts";
import { ignoredKeys } from "./ignored.ts";

export function sourceLines(input: {
  merged: Record<string, unknown>;
  sourceOf: (path: JsonPath) => string | undefined;
  /** Names of the layers that came from an untrusted project file. */
  untrusted: ReadonlySet<string>;
  trusted: boolean;
  narrowingByFile: ReadonlyArray<{ file: string; narrowing: Narrowing }>;
  ignored: readonly IgnoredKey[];
}): SourceLine[] {
  const project = input.trusted ? "project" : "untrusted project";
  return [
    ...leaves(input.merged).map((path) => {
      const source = input.sourceOf(path);
      const used = source !== undefined && input.untrusted.has(source);
      return { path, source: source ?? "defaults", ...(used ? { note: `${project}: used` } : {}) };
    }),
    ...narrowingSources(input.narrowingByFile),
    ...input.ignored.map((i) => ({
      path: i.key === "*" ? [] : parsePath(i.key),
      source: i.file,
      note: `${project}: ignored (${i.reason})`,
    })),
  ];
}

/** The crush keys of the merged config that mopac does not use, once each, with a source. */
export function unusedKeyLines(
  merged: Record<string, unknown>,
  sourceOf: (path: JsonPath) => string | undefined,
): { path: JsonPath; source: string }[] {
  return ignoredKeys(
    leaves(merged).map((path) => ({ path, source: sourceOf(path) ?? "defaults" })),
  );
}

export function narrowingSources(
  perFile: ReadonlyArray<{ file: string; narrowing: Narrowing }>,
): Array<{ path: JsonPath; source: string; note: string }> {
  const out: Array<{ path: JsonPath; source: string; note: string }> = [];
  for (const { file, narrowing } of perFile) {
    const line = (path: JsonPath, note: string) =>
      out.push({ path, source: file, note: `untrusted project: ${note}` });
    const caps = (prefix: JsonPath, limits: LimitCaps, what: string) => {
      for (const [key, value] of Object.entries(limits)) {
        line([...prefix, key], `caps ${what} at ${value}`);
      }
    };
    narrowing.allowed_tools.forEach((list) =>
      line(["permissions", "allowed_tools"], `narrows every profile to ${list.join(", ")}`)
    );
    caps(["limits"], narrowing.limits, "every limit");
    for (const [name, p] of Object.entries(narrowing.agents)) {
      const at = ["agents", name];
      p.allowed_tools.forEach((list) =>
        line([...at, "allowed_tools"], `narrows the profile to ${list.join(", ")}`)
      );
      if (p.bash_deny.length > 0) line([...at, "bash", "deny"], `adds ${p.bash_deny.join(", ")}`);
      if (p.bash_network_none) line([...at, "bash", "network"], "no network for jailed commands");
      if (p.paths_deny.length > 0) {
        line([...at, "paths", "deny"], `adds ${p.paths_deny.join(", ")}`);
      }
      caps(at, p.limits, "the profile's limit");
    }
  }
  return out;
}

function leaves(value: unknown, path: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((v, i) => leaves(v, [...path, i]));
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 && path.length > 0
      ? [path]
      : keys.flatMap((k) => leaves(value[k], [...path, k]));
  }
  return [path];
}
