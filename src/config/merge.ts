/**
 * Deep merge of config layers, recording for every node which layer (and which
 * path inside that layer) supplied it. Objects merge; scalars and arrays replace;
 * `providers.<id>.models` is prepended and an entry wins over a lower one with
 * the same id, field by field. A `models.large|small` that names a `model`
 * without a `provider` also drops the lower layers' provider, so `-m other/x`
 * cannot end up paired with a provider from a config file.
 */
import type { JsonPath } from "./jsonc.ts";
import { hookEventName } from "./schema_runtime.ts";

export interface SourceRef {
  layer: number;
  /** Path of the node inside that layer's value (array indexes may differ from the merged ones). */
  path: JsonPath;
}

export class SourceMap {
  #map = new Map<string, { merged: JsonPath; ref: SourceRef }>();

  set(merged: JsonPath, ref: SourceRef): void {
    this.#map.set(JSON.stringify(merged), { merged, ref });
  }

  get(merged: JsonPath): SourceRef | undefined {
    return this.#map.get(JSON.stringify(merged))?.ref;
  }

  /** The deepest recorded node on `merged` and the part of the path below it. */
  find(merged: JsonPath): { ref: SourceRef; rest: JsonPath } | undefined {
    for (let n = merged.length; n >= 0; n--) {
      const ref = this.get(merged.slice(0, n));
      if (ref) return { ref, rest: merged.slice(n) };
    }
    return undefined;
  }

  /** Removes `merged` and everything below it, returning what was removed. */
  take(merged: JsonPath): { merged: JsonPath; ref: SourceRef }[] {
    const key = JSON.stringify(merged);
    const below = key.slice(0, -1) + ",";
    const out = [];
    for (const [k, v] of this.#map) {
      if (k === key || k.startsWith(below)) {
        out.push(v);
        this.#map.delete(k);
      }
    }
    return out;
  }

  entries(): { merged: JsonPath; ref: SourceRef }[] {
    return [...this.#map.values()];
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Merges `layer` (the value of layer number `index`) into `target`. With `append`,
 * its arrays are added after the lower ones instead of replacing them (what an
 * untrusted project adds to the operator's lists).
 */
export function mergeLayer(
  target: Record<string, unknown>,
  layer: Record<string, unknown>,
  index: number,
  sources: SourceMap,
  options: { append?: boolean } = {},
): void {
  if (!options.append) sources.set([], { layer: index, path: [] });
  mergeObject(target, layer, [], [], index, sources, options.append === true);
}

function mergeObject(
  target: Record<string, unknown>,
  src: Record<string, unknown>,
  merged: JsonPath,
  own: JsonPath,
  layer: number,
  sources: SourceMap,
  append = false,
): void {
  for (const [written, value] of Object.entries(src)) {
    if (value === undefined) continue;
    // crush's hook events come in any case; the source map keeps the key as written.
    const key = merged.length === 1 && merged[0] === "hooks" ? hookEventName(written) : written;
    const mp = [...merged, key];
    const op = [...own, written];
    if (mp.length === 1 && key === "hooks" && isPlainObject(value) && !isPlainObject(target[key])) {
      // Merged key by key (never copied whole), so each event name is made canonical.
      sources.take(mp);
      target[key] = {};
    }
    const lower = target[key];
    if (append && Array.isArray(value) && Array.isArray(lower)) {
      value.forEach((v, j) => record(v, [...mp, lower.length + j], [...op, j], layer, sources));
      target[key] = [...lower, ...structuredClone(value)];
    } else if (isModelList(mp) && Array.isArray(value) && Array.isArray(lower)) {
      target[key] = mergeModelLists(lower, value, mp, op, layer, sources);
    } else if (isPlainObject(value) && isPlainObject(lower)) {
      if (isSelectedModel(mp) && value.model !== undefined && value.provider === undefined) {
        delete lower.provider;
        sources.take([...mp, "provider"]);
      }
      if (!append) sources.set(mp, { layer, path: op });
      mergeObject(lower, value, mp, op, layer, sources, append);
    } else {
      sources.take(mp);
      target[key] = structuredClone(value);
      record(value, mp, op, layer, sources);
    }
  }
}

function isModelList(p: JsonPath): boolean {
  return p.length === 3 && p[0] === "providers" && p[2] === "models";
}

function isSelectedModel(p: JsonPath): boolean {
  return p.length === 2 && p[0] === "models" && (p[1] === "large" || p[1] === "small");
}

function record(
  value: unknown,
  merged: JsonPath,
  own: JsonPath,
  layer: number,
  sources: SourceMap,
) {
  sources.set(merged, { layer, path: own });
  if (Array.isArray(value)) {
    value.forEach((v, i) => record(v, [...merged, i], [...own, i], layer, sources));
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      record(v, [...merged, k], [...own, k], layer, sources);
    }
  }
}

function idOf(v: unknown): string | undefined {
  return isPlainObject(v) && typeof v.id === "string" ? v.id : undefined;
}

function mergeModelLists(
  lower: unknown[],
  upper: unknown[],
  merged: JsonPath,
  own: JsonPath,
  layer: number,
  sources: SourceMap,
): unknown[] {
  const lowerSources = sources.take(merged);
  const restore = (from: number, to: number) => {
    for (const { merged: p, ref } of lowerSources) {
      if (p[merged.length] === from) {
        sources.set([...merged, to, ...p.slice(merged.length + 1)], ref);
      }
    }
  };
  const used = new Set<number>();
  const out: unknown[] = [];
  upper.forEach((entry, j) => {
    const idx = out.length;
    const id = idOf(entry);
    const k = id === undefined ? -1 : lower.findIndex((l, i) => !used.has(i) && idOf(l) === id);
    if (k >= 0 && isPlainObject(entry)) {
      used.add(k);
      const base = structuredClone(lower[k]) as Record<string, unknown>;
      restore(k, idx);
      sources.set([...merged, idx], { layer, path: [...own, j] });
      mergeObject(base, entry, [...merged, idx], [...own, j], layer, sources);
      out.push(base);
    } else {
      out.push(structuredClone(entry));
      record(entry, [...merged, idx], [...own, j], layer, sources);
    }
  });
  lower.forEach((entry, k) => {
    if (used.has(k)) return;
    restore(k, out.length);
    out.push(structuredClone(entry));
  });
  sources.set(merged, { layer, path: own });
  return out;
}
