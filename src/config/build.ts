/**
 * Merging the layers into one validated config: every layer in order, then what an
 * untrusted project adds to the operator's lists (appended, on top of everything),
 * and last the check of an untrusted project's model choice: a choice the caller's
 * checker refuses is dropped and reported, and the next layer down decides.
 */
import type { Config } from "./schema.ts";
import type { Layer } from "./layers.ts";
import type { ModelRole } from "./loaded.ts";
import { mergeLayer, SourceMap } from "./merge.ts";
import type { ProjectLayers } from "./project_layers.ts";
import { validateMerged } from "./validate.ts";

export interface Built {
  merged: Record<string, unknown>;
  sources: SourceMap;
  config: Config;
  /** Every layer, the appended ones last; a source's `layer` indexes this. */
  all: Layer[];
}

export function buildConfig(
  layers: Layer[],
  project: ProjectLayers,
  problemOf?: (config: Config, role: ModelRole) => string | undefined,
): Built {
  const all = [...layers, ...project.appends];
  const build = (): Built => {
    const merged: Record<string, unknown> = {};
    const sources = new SourceMap();
    layers.forEach((layer, i) => mergeLayer(merged, layer.value, i, sources));
    project.appends.forEach((layer, j) =>
      mergeLayer(merged, layer.value, layers.length + j, sources, { append: true })
    );
    return { merged, sources, config: validateMerged(merged, all, sources), all };
  };
  let built = build();
  for (let round = 0; problemOf && round < layers.length; round++) {
    if (!dropBadChoice(built, project, problemOf)) break;
    built = build();
  }
  return built;
}

/**
 * Drops an untrusted project's `models.<role>` choice that the checker refuses (the
 * next layer down then decides); true when one was dropped.
 */
function dropBadChoice(
  built: Built,
  project: ProjectLayers,
  problemOf: (config: Config, role: ModelRole) => string | undefined,
): boolean {
  for (const role of ["large", "small"] as const) {
    const ref = built.sources.get(["models", role, "model"]);
    const layer = ref && built.all[ref.layer];
    if (!layer || !project.untrusted.has(layer.name)) continue;
    const problem = problemOf(built.config, role);
    if (problem === undefined) continue;
    delete (layer.value.models as Record<string, unknown>)[role];
    project.ignored.push({ file: layer.name, key: `models.${role}`, reason: problem });
    return true;
  }
  return false;
}
