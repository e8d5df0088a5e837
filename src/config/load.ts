/**
 * Builds the config from every layer, lowest first:
 *   /etc/mopac/mopac.json → $XDG_CONFIG_HOME/mopac/mopac.json → $XDG_DATA_HOME/mopac/mopac.json
 *   → project files from the git root down to the cwd → <data dir>/mopac.json
 *   → --config FILE (or $MOPAC_CONFIG) → MOPAC_* environment variables → `-c KEY=VALUE`
 *   settings (each its own layer, later ones higher) → the other flags.
 * The explicit file sits above every discovered file because naming a file is the
 * strongest statement a user makes short of a flag; env and flags stay above it so
 * a CI job can still override one value of a shared config file.
 *
 * The project's files (and a data-dir file inside the project) are someone else's
 * unless the operator trusts the project (trust.ts): the operator's files are read
 * first to decide that, and an untrusted project's files only narrow (untrusted.ts).
 */
import { join, resolve } from "node:path";
import { type JsonPath, parsePath } from "./jsonc.ts";
import { envLayers, type Layer, layerEnv, nest } from "./layers.ts";
import { isPlainObject } from "./merge.ts";
import {
  checkDirectory,
  configuredDataDir,
  findGitRoot,
  foldersFromRoot,
  PROJECT_FILE_NAMES,
  resolveDataDir,
} from "./paths.ts";
import { decideTrust, realPathOf, TRUST_ENV, within } from "./trust.ts";
import { checkDataDirLinks, ProjectLayers } from "./project_layers.ts";
import { FileLayers, operatorLayers } from "./file_layers.ts";
import { buildConfig } from "./build.ts";
import { sourceLines, unusedKeyLines } from "./sources.ts";
import { settingLayer } from "./settings.ts";
import type { LoadedConfig, LoadOptions } from "./loaded.ts";
import { BUILTIN_PROFILE_NAMES } from "../domain/profile_names.ts";

export type { LoadedConfig, LoadOptions, ModelRole, ProjectTrust, SourceLine } from "./loaded.ts";

export async function loadConfig(opts: LoadOptions): Promise<LoadedConfig> {
  const cwd = resolve(opts.cwd);
  await checkDirectory(cwd, "the working directory", false);
  const env = layerEnv(opts.env);
  const home = opts.home ?? env("HOME");
  const gitRoot = await findGitRoot(cwd);
  const workspaceRoot = gitRoot ?? cwd;
  const realRoot = await realPathOf(workspaceRoot);
  const files = new FileLayers(opts);
  // What `mopac sandbox` must let a run read, or the run would see another config.
  const envUsed = new Set<string>();

  // The operator's files first: they say whether the project's own files are trusted.
  const { discovered: operator, explicit } = await operatorLayers(
    files,
    opts,
    { cwd, home, env },
    envUsed,
  );
  // `-c` settings are flags: the operator's, read before the project's files like the rest.
  const settings = (opts.settings ?? []).map(settingLayer);
  const trust = decideTrust({
    flag: opts.trustProject,
    env,
    operatorLayers: [...operator, ...(explicit ? [explicit] : []), ...settings],
    root: workspaceRoot,
    realRoot,
    home,
  });
  if (trust.by === TRUST_ENV) envUsed.add(TRUST_ENV);

  const project = new ProjectLayers({
    root: workspaceRoot,
    realRoot,
    trusted: trust.trusted,
    expand: files.expand,
  });
  for (const dir of foldersFromRoot(workspaceRoot, cwd)) {
    for (const name of PROJECT_FILE_NAMES) {
      const file = resolve(dir, name);
      if (files.claim(file)) await project.add(file);
    }
  }

  // A flag beats the environment: `-c options.data_directory=…` wins over MOPAC_DATA_DIR.
  const settingDataDir = configuredDataDir(settings.map((l) => l.value));
  const envDataDir = settingDataDir ? undefined : env("MOPAC_DATA_DIR");
  const dataDir = resolveDataDir({
    cwd,
    workspaceRoot,
    home,
    flag: opts.dataDir,
    env: envDataDir,
    configured: configuredDataDir([
      ...[...operator, ...project.layers, ...(explicit ? [explicit] : []), ...settings].map((l) =>
        l.value
      ),
      opts.flags,
    ]),
  });
  await checkDirectory(dataDir, "the data dir", true);
  // The data dir's own file cannot move the data dir: it is read after the dir is known.
  // Inside the project it is the project's file, whoever chose the data dir.
  const dataFile = join(dataDir, "mopac.json");
  const dataInProject = within(dataDir, workspaceRoot) ||
    within(await realPathOf(dataDir), realRoot);
  if (dataInProject && !trust.trusted) await checkDataDirLinks(dataDir);
  let dataLayer: Layer | undefined;
  if (!dataInProject) dataLayer = await files.optional(dataFile);
  else if (files.claim(dataFile)) await project.add(dataFile);

  const layers: Layer[] = [...operator, ...project.layers];
  if (dataLayer) layers.push(dataLayer);
  if (explicit) layers.push(explicit);
  const fromEnv = envLayers(env);
  layers.push(...fromEnv);
  for (const l of fromEnv) envUsed.add(l.name.replace(/^env /, ""));
  if (!opts.dataDir && envDataDir) {
    envUsed.add("MOPAC_DATA_DIR");
    layers.push({
      name: "env MOPAC_DATA_DIR",
      value: nest(["options", "data_directory"], dataDir),
    });
  }
  layers.push(...settings);
  const flags = structuredClone((opts.flags ?? {}) as Record<string, unknown>);
  if (opts.dataDir) flags.options = { ...(flags.options as object ?? {}), data_directory: dataDir };
  if (Object.keys(flags).length > 0) layers.push({ name: "command line", value: flags });

  const { merged, sources, config, all } = buildConfig(layers, project, opts.modelChoiceProblem);
  const knownProfiles = new Set<string>([
    ...BUILTIN_PROFILE_NAMES,
    ...[...operator, dataLayer, explicit, ...settings].flatMap((l) =>
      l && isPlainObject(l.value.agents) ? Object.keys(l.value.agents) : []
    ),
  ]);
  const { narrowing, perFile } = project.narrowing(knownProfiles);
  const sourceOf = (path: JsonPath | string) => {
    const ref = sources.get(typeof path === "string" ? parsePath(path) : path);
    return ref && all[ref.layer].name;
  };
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
    sources: () =>
      sourceLines({
        merged,
        sourceOf,
        untrusted: project.untrusted,
        trusted: trust.trusted,
        narrowingByFile: perFile,
        ignored: project.ignored,
      }),
    unusedKeys: () => unusedKeyLines(merged, sourceOf),
    referencedEnv: [...files.referenced].sort(),
    expandedPaths: files.expandedPaths,
    unsetVars: (path) => files.unset.get(path) ?? [],
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
