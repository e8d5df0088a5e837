/**
 * Builds the config from every layer, lowest first:
 *   /etc/mopac/mopac.json → $XDG_CONFIG_HOME/mopac/mopac.json → $XDG_DATA_HOME/mopac/mopac.json
 *   → project files from the git root down to the cwd → <data dir>/mopac.json
 *   → --config FILE (or $MOPAC_CONFIG) → MOPAC_* environment variables → flags.
 * The explicit file sits above every discovered file because naming a file is the
 * strongest statement a user makes short of a flag; env and flags stay above it so
 * a CI job can still override one value of a shared config file.
 *
 * The project's files (and a data-dir file inside the project) are someone else's
 * unless the operator trusts the project (trust.ts): the operator's files are read
 * first to decide that, and an untrusted project's files only narrow (untrusted.ts).
 */
import { join, resolve } from "node:path";
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
import { decideTrust, realPathOf, TRUST_ENV, within } from "./trust.ts";
import { checkDataDirLinks, ProjectLayers } from "./project_layers.ts";
import type { IgnoredKey, Narrowing } from "./narrowing.ts";
import { narrowingSources } from "./sources.ts";
import { BUILTIN_PROFILE_NAMES } from "../domain/profile_names.ts";
import { UsageError } from "../util/errors.ts";

export type ModelRole = "large" | "small";

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
  /** `--trust-project`: the project's own config files count like the operator's. */
  trustProject?: boolean;
  /**
   * Why an untrusted project's choice of `models.<role>` cannot stand (a provider or
   * model that the operator's config and the catalog do not define), or undefined.
   * The catalog is not config's to know, so the caller checks; without a checker
   * every choice stands.
   */
  modelChoiceProblem?: (config: Config, role: ModelRole) => string | undefined;
}

/** Whether the project's config was trusted, and what an untrusted one asked for in vain. */
export interface ProjectTrust {
  /** The project root (git root, else the cwd). */
  root: string;
  trusted: boolean;
  /** What trusted it (`--trust-project`, `MOPAC_TRUST_PROJECT`, `trusted_projects in FILE`). */
  by?: string;
  /** The project's config files that were found, trusted or not. */
  files: string[];
  /** Keys of untrusted files that were not used, in file order. */
  ignored: IgnoredKey[];
  /** What the untrusted files narrow (applied by profile and limit resolution). */
  narrowing: Narrowing;
  /** The same, file by file (to say which file asked for what). */
  narrowingByFile: ReadonlyArray<{ file: string; narrowing: Narrowing }>;
}

/** One line of `config show --sources`. */
export interface SourceLine {
  path: JsonPath;
  source: string;
  /** Set for what an untrusted project gave: how it was used, or why not. */
  note?: string;
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
  /** Every leaf value and where it came from, in key order, then what a project could not set. */
  sources(): SourceLine[];
  /** Environment variables that config files reference with $VAR / ${VAR}. */
  referencedEnv: string[];
  /** Paths whose value came out of $VAR / $(cmd) expansion (secrets live here). */
  expandedPaths: JsonPath[];
  /**
   * mopac's own variables that located a config file or set a value (XDG_CONFIG_HOME
   * or HOME for a user file that was found, MOPAC_*): a run that cannot read them
   * would see another config, so `mopac sandbox` lists them.
   */
  envUsed: string[];
  project: ProjectTrust;
}

export async function loadConfig(opts: LoadOptions): Promise<LoadedConfig> {
  const cwd = resolve(opts.cwd);
  await checkDirectory(cwd, "the working directory", false);
  const env = quietEnv(opts.env);
  const home = opts.home ?? env("HOME");
  const gitRoot = await findGitRoot(cwd);
  const workspaceRoot = gitRoot ?? cwd;
  const realRoot = await realPathOf(workspaceRoot);
  const referenced = new Set<string>();
  const expandedPaths: JsonPath[] = [];

  const fileLayer = async (parsed: ParsedFile): Promise<Layer> => {
    const expanded: JsonPath[] = [];
    const value = await expandValue(parsed.value, {
      env: opts.env,
      cwd: resolve(parsed.file, ".."),
      where: (p) => locate(parsed, p).where,
      commandTimeoutMs: opts.commandTimeoutMs,
      referenced,
      expanded,
    }) as Record<string, unknown>;
    expandedPaths.push(...expanded);
    return { name: parsed.file, value, parsed };
  };
  const seen = new Set<string>();
  const operatorFile = async (file: string): Promise<Layer | undefined> => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const parsed = await readConfigFile(file, false);
    return parsed && await fileLayer(parsed);
  };

  // The operator's files first: they say whether the project's own files are trusted.
  // `envUsed`: the variables that found a file or set a value (what `mopac sandbox` must
  // let a run read, or the run would see another config).
  const envUsed = new Set<string>();
  const operator: Layer[] = [];
  const dirs = userDirs(env, home);
  const userFile = (dir: string | undefined, variable: string) =>
    dir ? [{ file: join(dir, "mopac", "mopac.json"), via: env(variable) ? variable : "HOME" }] : [];
  for (
    const { file, via } of [
      { file: opts.systemFile ?? SYSTEM_CONFIG_FILE, via: undefined },
      ...userFile(dirs.configHome, "XDG_CONFIG_HOME"),
      ...userFile(dirs.dataHome, "XDG_DATA_HOME"),
    ]
  ) {
    const layer = await operatorFile(resolve(file));
    if (layer) operator.push(layer);
    if (layer && via && !(via === "HOME" && opts.home)) envUsed.add(via);
  }
  const explicitPath = opts.configFile ?? env("MOPAC_CONFIG");
  let explicit: Layer | undefined;
  if (explicitPath) {
    const flag = opts.configFile ? "--config" : "MOPAC_CONFIG";
    if (!opts.configFile) envUsed.add("MOPAC_CONFIG");
    const file = resolve(cwd, explicitPath);
    seen.add(file);
    explicit = await fileLayer((await readConfigFile(file, { flag }))!);
  }
  const trust = decideTrust({
    flag: opts.trustProject,
    env,
    operatorLayers: [...operator, ...(explicit ? [explicit] : [])],
    root: workspaceRoot,
    realRoot,
    home,
  });

  const project = new ProjectLayers({
    root: workspaceRoot,
    realRoot,
    trusted: trust.trusted,
    expand: fileLayer,
  });
  const candidates = foldersFromRoot(workspaceRoot, cwd).flatMap((d) =>
    PROJECT_FILE_NAMES.map((n) => resolve(d, n))
  );
  for (const file of candidates) {
    if (seen.has(file)) continue;
    seen.add(file);
    await project.add(file);
  }

  const envDataDir = env("MOPAC_DATA_DIR");
  const dataDir = resolveDataDir({
    cwd,
    workspaceRoot,
    home,
    flag: opts.dataDir,
    env: envDataDir,
    configured: configuredDataDir(
      [...operator, ...project.layers, ...(explicit ? [explicit] : [])],
      opts.flags,
    ),
  });
  await checkDirectory(dataDir, "the data dir", true);
  // The data dir's own file cannot move the data dir: it is read after the dir is known.
  // Inside the project it is the project's file, whoever chose the data dir.
  const dataFile = join(dataDir, "mopac.json");
  const dataInProject = within(dataDir, workspaceRoot) ||
    within(await realPathOf(dataDir), realRoot);
  if (dataInProject && !trust.trusted) await checkDataDirLinks(dataDir);
  let dataLayer: Layer | undefined;
  if (dataInProject && !seen.has(dataFile)) {
    seen.add(dataFile);
    await project.add(dataFile);
  } else dataLayer = await operatorFile(dataFile);

  const layers: Layer[] = [...operator, ...project.layers];
  if (dataLayer) layers.push(dataLayer);
  if (explicit) layers.push(explicit);
  const fromEnv = envLayers(env);
  layers.push(...fromEnv);
  for (const l of fromEnv) envUsed.add(l.name.replace(/^env /, ""));
  if (trust.by === TRUST_ENV) envUsed.add(TRUST_ENV);
  if (!opts.dataDir && envDataDir) {
    envUsed.add("MOPAC_DATA_DIR");
    layers.push({
      name: "env MOPAC_DATA_DIR",
      value: nest(["options", "data_directory"], dataDir),
    });
  }
  const flags = structuredClone((opts.flags ?? {}) as Record<string, unknown>);
  if (opts.dataDir) flags.options = { ...(flags.options as object ?? {}), data_directory: dataDir };
  if (Object.keys(flags).length > 0) layers.push({ name: "command line", value: flags });
  // What an untrusted project adds to the operator's lists goes on top of everything.
  const all = [...layers, ...project.appends];

  const build = () => {
    const merged: Record<string, unknown> = {};
    const sources = new SourceMap();
    layers.forEach((layer, i) => mergeLayer(merged, layer.value, i, sources));
    project.appends.forEach((layer, j) =>
      mergeLayer(merged, layer.value, layers.length + j, sources, { append: true })
    );
    return { merged, sources, config: validateMerged(merged, all, sources) };
  };
  let built = build();
  // An untrusted project's model choice stands only among what the operator defines.
  for (let round = 0; opts.modelChoiceProblem && round < layers.length; round++) {
    const dropped = dropBadChoices(built, all, project, opts.modelChoiceProblem);
    if (!dropped) break;
    built = build();
  }
  const { merged, sources, config } = built;

  const knownProfiles = new Set<string>([
    ...BUILTIN_PROFILE_NAMES,
    ...[...operator, dataLayer, explicit].flatMap((l) =>
      l && isPlainObject(l.value.agents) ? Object.keys(l.value.agents) : []
    ),
  ]);
  const { narrowing, perFile } = project.narrowing(knownProfiles);
  const sourceOf = (path: JsonPath | string) => {
    const p = typeof path === "string" ? parsePath(path) : path;
    const ref = sources.get(p);
    return ref && all[ref.layer].name;
  };
  const noteOf = (source: string | undefined) =>
    source && project.untrusted.has(source) ? "untrusted project: used" : undefined;
  return {
    config,
    cwd,
    workspaceRoot,
    gitRoot,
    dataDir,
    files: [
      ...operator.map((l) => l.name),
      ...project.files,
      ...(dataLayer ? [dataLayer.name] : []),
      ...(explicit ? [explicit.name] : []),
    ],
    sourceOf,
    sources: () => [
      ...leaves(merged).map((path) => {
        const source = sourceOf(path);
        const note = noteOf(source);
        return { path, source: source ?? "defaults", ...(note ? { note } : {}) };
      }),
      ...narrowingSources(perFile),
      ...project.ignored.map((i) => ({
        path: i.key === "*" ? [] : parsePath(i.key),
        source: i.file,
        note: `untrusted project: ignored (${i.reason})`,
      })),
    ],
    referencedEnv: [...referenced].sort(),
    expandedPaths,
    envUsed: [...envUsed].sort(),
    project: {
      root: workspaceRoot,
      trusted: trust.trusted,
      ...(trust.by ? { by: trust.by } : {}),
      files: project.files,
      ignored: project.ignored,
      narrowing,
      narrowingByFile: perFile,
    },
  };
}

/**
 * Drops an untrusted project's `models.<role>` choice that the checker refuses (the
 * next layer down then decides); true when one was dropped.
 */
function dropBadChoices(
  built: { sources: SourceMap; config: Config },
  layers: Layer[],
  project: ProjectLayers,
  problemOf: (config: Config, role: ModelRole) => string | undefined,
): boolean {
  for (const role of ["large", "small"] as const) {
    const ref = built.sources.get(["models", role, "model"]);
    const layer = ref && layers[ref.layer];
    if (!layer || !project.untrusted.has(layer.name)) continue;
    const problem = problemOf(built.config, role);
    if (problem === undefined) continue;
    delete (layer.value.models as Record<string, unknown>)[role];
    project.ignored.push({ file: layer.name, key: `models.${role}`, reason: problem });
    return true;
  }
  return false;
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
