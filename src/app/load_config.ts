/**
 * Config as every command loads it: src/config's loader, given the catalog's check
 * of an untrusted project's model choice, and what is said about that project (one
 * stderr line, the `init` event's fields). A project's choice of model stands only
 * when it resolves among the providers and models the operator's config and the
 * catalog define, to a listed model (an unlisted one has no price, so `--max-cost`
 * could not hold it), with a key the operator provides.
 */
import { relative } from "node:path";
import {
  type Config,
  CONFIG_ENV_VARS,
  type IgnoredKey,
  loadConfig,
  type LoadedConfig,
  type LoadOptions,
  type ModelRole,
  TRUST_ENV,
  within,
} from "../config/mod.ts";
import { resolveModel } from "../catalog/mod.ts";
import { readEnv } from "../util/env.ts";

/**
 * How commands other than `run` read the environment for config: a variable Deno
 * hides is unset, except mopac's own (MOPAC_*), which the loader must see or refuse.
 */
export function commandEnv(name: string): string | undefined {
  return CONFIG_ENV_VARS.includes(name) ? Deno.env.get(name) : readEnv(name);
}

export function loadRunConfig(opts: Omit<LoadOptions, "modelChoiceProblem">) {
  return loadConfig({
    ...opts,
    modelChoiceProblem: (config, role) => modelChoiceProblem(config, role),
  });
}

/** Why the project's `models.<role>` cannot stand; `env` holds the keys (default: mopac's). */
export function modelChoiceProblem(
  config: Config,
  role: ModelRole,
  env: (name: string) => string | undefined = readEnv,
): string | undefined {
  try {
    const model = resolveModel(role, { config, env });
    if (!model.unlisted) return undefined;
    return `${model.provider_id}/${model.model_id} is not a model the operator's config or ` +
      "the catalog lists";
  } catch (err) {
    return (err as Error).message;
  }
}

/** A project file as the project names it: relative to its root when inside. */
export function projectPath(loaded: LoadedConfig, file: string): string {
  const root = loaded.project.root;
  return within(file, root) ? relative(root, file) || "." : file;
}

/**
 * The `init` event's word on the project's config; `ignored` defaults to what loading
 * it ignored (a run adds what its narrowing asked for beyond the operator's profile).
 */
export function projectFacts(
  loaded: LoadedConfig,
  ignored: readonly IgnoredKey[] = loaded.project.ignored,
): {
  project_trusted: boolean;
  ignored_project_keys: Array<{ file: string; key: string; reason: string }>;
} {
  return {
    project_trusted: loaded.project.trusted,
    ignored_project_keys: ignored.map((i) => ({
      ...i,
      file: projectPath(loaded, i.file),
    })),
  };
}

/**
 * The one stderr line about a project whose config asked for more than it may have:
 * which keys of which file were ignored and, when the project is untrusted, how to
 * trust it. (A trusted project is refused only what the operator alone may set.)
 */
export function projectNotice(
  loaded: LoadedConfig,
  ignored: readonly IgnoredKey[] = loaded.project.ignored,
): string | undefined {
  if (ignored.length === 0) return undefined;
  const byFile = new Map<string, string[]>();
  for (const i of ignored) {
    const file = projectPath(loaded, i.file);
    const keys = byFile.get(file) ?? [];
    keys.push(i.key === "*" ? "the whole file" : i.key);
    byFile.set(file, keys);
  }
  const parts = [...byFile].map(([file, keys]) => `${[...new Set(keys)].join(", ")} (${file})`);
  if (loaded.project.trusted) {
    return `mopac: ignored ${parts.join("; ")}: only the operator may set it (flags, MOPAC_* ` +
      "variables, --config, user or system config)";
  }
  return `mopac: the project's config is not trusted; ignored ${parts.join("; ")}. ` +
    `To use it, pass --trust-project, set ${TRUST_ENV}=1 or list the project in ` +
    "trusted_projects of your own config";
}
