/**
 * Builds the config from every layer, lowest first:
 *   /etc/mopac/mopac.json → $XDG_CONFIG_HOME/mopac/mopac.json → $XDG_DATA_HOME/mopac/mopac.json
 *   → project files from the git root down to the cwd → <data dir>/mopac.json
 *   → --config FILE (or $MOPAC_CONFIG) → MOPAC_* environment variables → flags.
 * The explicit file sits above every discovered file because naming a file is the
 * strongest statement a user makes short of a flag; env and flags stay above it so
 * a CI job can still override one value of a shared config file.
 */
import { dirname, join, resolve } from "node:path";
import type { Config, ConfigInput, DeepPartial } from "./schema.ts";
import { expandValue } from "./expand.ts";
import { type JsonPath, locate, type ParsedFile, parsePath } from "./jsonc.ts";
import { envLayers, type Layer, nest, readConfigFile } from "./layers.ts";
import { isPlainObject, mergeLayer, SourceMap } from "./merge.ts";
import {
  findGitRoot,
  foldersFromRoot,
  PROJECT_FILE_NAMES,
  resolveDataDir,
  SYSTEM_CONFIG_FILE,
  userDirs,
} from "./paths.ts";
import { validateMerged } from "./validate.ts";
import { UsageError } from "../util/errors.ts";

export interface LoadOptions {
  cwd: string;
  /** `--config FILE`: read above every discovered file; must exist. */
  configFile?: string;
  /** `--data-dir DIR`, relative to the cwd. */
  dataDir?: string;
  /** Values from command-line flags, the top layer. */
  flags?: DeepPartial<ConfigInput>;
  env: (name: string) => string | undefined;
  /** Defaults to $HOME. */
  home?: string;
  /** Defaults to /etc/mopac/mopac.json (tests point it elsewhere). */
  systemFile?: string;
  /** Time limit of each `$(command)` in config; default 10 s. */
  commandTimeoutMs?: number;
}

export interface LoadedConfig {
  config: Config;
  cwd: string;
  /** The git root, else the cwd. */
  workspaceRoot: string;
  gitRoot?: string;
  dataDir: string;
  /** Config files that were read, lowest layer first. */
  files: string[];
  /** The file (or `env NAME` / `command line`) that supplied the value at `path`. */
  sourceOf(path: JsonPath | string): string | undefined;
  /** Every leaf value and where it came from, in key order. */
  sources(): { path: JsonPath; source: string }[];
  /** Environment variables that config files reference with $VAR / ${VAR}. */
  referencedEnv: string[];
  /** Paths whose value came out of $VAR / $(cmd) expansion (secrets live here). */
  expandedPaths: JsonPath[];
  /** Values a project file set and mopac ignored (see OPERATOR_ONLY), one line each. */
  ignored: string[];
}

/**
 * Keys only the operator may set (flags, MOPAC_*, --config, system and user config):
 * a config file in the repository, or in its data dir, is the project's, and the
 * project does not get to turn off what protects the operator from it.
 */
export const OPERATOR_ONLY: readonly JsonPath[] = [["options", "sandbox"]];

export async function loadConfig(opts: LoadOptions): Promise<LoadedConfig> {
  const cwd = resolve(opts.cwd);
  await checkDirectory(cwd, "the working directory", false);
  const env = quietEnv(opts.env);
  const home = opts.home ?? env("HOME");
  const gitRoot = await findGitRoot(cwd);
  const workspaceRoot = gitRoot ?? cwd;
  const referenced = new Set<string>();
  const expandedPaths: JsonPath[] = [];

  const fileLayer = async (parsed: ParsedFile): Promise<Layer> => {
    const expanded: JsonPath[] = [];
    const value = await expandValue(parsed.value, {
      env: opts.env,
      cwd: dirname(parsed.file),
      where: (p) => locate(parsed, p).where,
      commandTimeoutMs: opts.commandTimeoutMs,
      referenced,
      expanded,
    }) as Record<string, unknown>;
    expandedPaths.push(...expanded);
    return { name: parsed.file, value, parsed };
  };
  const optional = async (file: string, seen: Set<string>): Promise<Layer | undefined> => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const parsed = await readConfigFile(file, false);
    return parsed && await fileLayer(parsed);
  };

  const seen = new Set<string>();
  const discovered: Layer[] = [];
  const dirs = userDirs(env, home);
  const operatorFiles = [
    opts.systemFile ?? SYSTEM_CONFIG_FILE,
    ...(dirs.configHome ? [join(dirs.configHome, "mopac", "mopac.json")] : []),
    ...(dirs.dataHome ? [join(dirs.dataHome, "mopac", "mopac.json")] : []),
  ].map((f) => resolve(f));
  const projectFiles = foldersFromRoot(workspaceRoot, cwd).flatMap((d) =>
    PROJECT_FILE_NAMES.map((n) => resolve(join(d, n)))
  );
  const ignored: string[] = [];
  for (const file of [...operatorFiles, ...projectFiles]) {
    const layer = await optional(file, seen);
    if (!layer) continue;
    // A user config file inside the repository is still the operator's.
    if (!operatorFiles.includes(file)) dropOperatorOnly(layer, ignored);
    discovered.push(layer);
  }

  const explicitPath = opts.configFile ?? env("MOPAC_CONFIG");
  let explicit: Layer | undefined;
  if (explicitPath) {
    const flag = opts.configFile ? "--config" : "MOPAC_CONFIG";
    const file = resolve(cwd, explicitPath);
    seen.add(file);
    explicit = await fileLayer((await readConfigFile(file, { flag }))!);
  }

  const envDataDir = env("MOPAC_DATA_DIR");
  const dataDir = resolveDataDir({
    cwd,
    workspaceRoot,
    home,
    flag: opts.dataDir,
    env: envDataDir,
    configured: configuredDataDir([...discovered, ...(explicit ? [explicit] : [])], opts.flags),
  });
  await checkDirectory(dataDir, "the data dir", true);
  // The data dir's own file cannot move the data dir: it is read after the dir is known.
  const dataLayer = await optional(join(dataDir, "mopac.json"), seen);
  if (dataLayer) dropOperatorOnly(dataLayer, ignored);

  const layers: Layer[] = [...discovered];
  if (dataLayer) layers.push(dataLayer);
  if (explicit) layers.push(explicit);
  layers.push(...envLayers(env));
  if (!opts.dataDir && envDataDir) {
    layers.push({
      name: "env MOPAC_DATA_DIR",
      value: nest(["options", "data_directory"], dataDir),
    });
  }
  const flags = structuredClone((opts.flags ?? {}) as Record<string, unknown>);
  if (opts.dataDir) flags.options = { ...(flags.options as object ?? {}), data_directory: dataDir };
  if (Object.keys(flags).length > 0) layers.push({ name: "command line", value: flags });

  const merged: Record<string, unknown> = {};
  const sources = new SourceMap();
  layers.forEach((layer, i) => mergeLayer(merged, layer.value, i, sources));
  const config = validateMerged(merged, layers, sources);

  const sourceOf = (path: JsonPath | string) => {
    const p = typeof path === "string" ? parsePath(path) : path;
    const ref = sources.get(p);
    return ref && layers[ref.layer].name;
  };
  return {
    config,
    cwd,
    workspaceRoot,
    gitRoot,
    dataDir,
    files: layers.flatMap((l) => (l.parsed ? [l.parsed.file] : [])),
    sourceOf,
    sources: () => leaves(merged).map((path) => ({ path, source: sourceOf(path) ?? "defaults" })),
    referencedEnv: [...referenced].sort(),
    expandedPaths,
    ignored,
  };
}

/** Removes the operator-only keys from a project layer, noting each one it had. */
function dropOperatorOnly(layer: Layer, ignored: string[]): void {
  for (const path of OPERATOR_ONLY) {
    let parent: unknown = layer.value;
    for (const key of path.slice(0, -1)) {
      parent = isPlainObject(parent) ? parent[key as string] : undefined;
    }
    const last = path[path.length - 1] as string;
    if (!isPlainObject(parent) || !Object.hasOwn(parent, last)) continue;
    delete parent[last];
    ignored.push(
      `${path.join(".")} in ${layer.name} is ignored: only the operator (flags, MOPAC_* ` +
        "variables, --config, user or system config) may set it",
    );
  }
}

/**
 * A cwd or data dir that is missing or a file would otherwise fail later for a
 * misleading reason ("no model selected", "cannot read …/file/.crush.json").
 * What the sandbox hides is left to the preflight, which names the flag.
 */
async function checkDirectory(path: string, what: string, missingOk: boolean): Promise<void> {
  const hint = what === "the data dir"
    ? "it comes from --data-dir, MOPAC_DATA_DIR or options.data_directory"
    : "check --cwd";
  let isDirectory: boolean;
  try {
    isDirectory = (await Deno.stat(path)).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound && missingOk) return;
    if (err instanceof Deno.errors.NotFound) {
      throw new UsageError(`${what} ${path} does not exist`, { hint });
    }
    if (!(err instanceof Deno.errors.NotADirectory)) return;
    isDirectory = false;
  }
  if (!isDirectory) throw new UsageError(`${what} ${path} is not a directory`, { hint });
}

/** The highest layer's `options.data_directory`, when it is a string. */
function configuredDataDir(layers: Layer[], flags: LoadOptions["flags"]): string | undefined {
  let found: string | undefined;
  for (const value of [...layers.map((l) => l.value), flags ?? {}]) {
    const options = (value as Record<string, unknown>).options;
    if (isPlainObject(options) && typeof options.data_directory === "string") {
      found = options.data_directory;
    }
  }
  return found || undefined;
}

/** Optional lookups (HOME, XDG_*, MOPAC_*) treat a variable the sandbox hides as unset. */
function quietEnv(env: (name: string) => string | undefined) {
  return (name: string) => {
    try {
      return env(name);
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) return undefined;
      throw err;
    }
  };
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
