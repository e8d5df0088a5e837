/**
 * Config files as layers. A file is read at most once, whichever way it was found;
 * a trusted file's strings are expanded once (so an error names the file that holds
 * the text). The operator's files (system, user, `--config`) come first: they decide
 * whether the project's own files are trusted.
 */
import { join, resolve } from "node:path";
import { expandValue } from "./expand.ts";
import { type JsonPath, locate, type ParsedFile } from "./jsonc.ts";
import { type Layer, readConfigFile } from "./layers.ts";
import type { LoadOptions } from "./loaded.ts";
import { SYSTEM_CONFIG_FILE, userDirs } from "./paths.ts";

export class FileLayers {
  /** Variables the expanded files referenced. */
  readonly referenced = new Set<string>();
  /** Paths whose value expansion changed. */
  readonly expandedPaths: JsonPath[] = [];
  /** Per dotted path, the unset variables its value named (the last file's). */
  readonly unset = new Map<string, string[]>();
  readonly #seen = new Set<string>();

  constructor(private readonly opts: Pick<LoadOptions, "env" | "commandTimeoutMs">) {}

  /** A trusted file's layer: its strings expanded. */
  expand = async (parsed: ParsedFile): Promise<Layer> => {
    const expanded: JsonPath[] = [];
    const unset = new Map<string, string[]>();
    const value = await expandValue(parsed.value, {
      env: this.opts.env,
      cwd: resolve(parsed.file, ".."),
      where: (p) => locate(parsed, p).where,
      commandTimeoutMs: this.opts.commandTimeoutMs,
      referenced: this.referenced,
      expanded,
      unset,
    }) as Record<string, unknown>;
    this.expandedPaths.push(...expanded);
    for (const [path, names] of unset) this.unset.set(path, names);
    return { name: parsed.file, value, parsed };
  };

  /** Marks a file as read; false when it was read already. */
  claim(file: string): boolean {
    if (this.#seen.has(file)) return false;
    this.#seen.add(file);
    return true;
  }

  /** An optional trusted file; undefined when missing or read already. */
  async optional(file: string): Promise<Layer | undefined> {
    if (!this.claim(file)) return undefined;
    const parsed = await readConfigFile(file, false);
    return parsed && await this.expand(parsed);
  }
}

/**
 * The operator's files: /etc/mopac, the user's XDG files and `--config` (or
 * MOPAC_CONFIG). `envUsed` gets the variables that found one (XDG_CONFIG_HOME, or
 * HOME when that is how the default folder was found, MOPAC_CONFIG).
 */
export async function operatorLayers(
  files: FileLayers,
  opts: Pick<LoadOptions, "systemFile" | "configFile" | "home">,
  ctx: { cwd: string; home?: string; env: (name: string) => string | undefined },
  envUsed: Set<string>,
): Promise<{ discovered: Layer[]; explicit?: Layer }> {
  const { env } = ctx;
  const dirs = userDirs(env, ctx.home);
  const userFile = (dir: string | undefined, variable: string) =>
    dir ? [{ file: join(dir, "mopac", "mopac.json"), via: env(variable) ? variable : "HOME" }] : [];
  const discovered: Layer[] = [];
  for (
    const { file, via } of [
      { file: opts.systemFile ?? SYSTEM_CONFIG_FILE, via: undefined },
      ...userFile(dirs.configHome, "XDG_CONFIG_HOME"),
      ...userFile(dirs.dataHome, "XDG_DATA_HOME"),
    ]
  ) {
    const layer = await files.optional(resolve(file));
    if (!layer) continue;
    discovered.push(layer);
    // A home given by the caller (tests) was not read from HOME.
    if (via && !(via === "HOME" && opts.home)) envUsed.add(via);
  }
  const explicitPath = opts.configFile ?? env("MOPAC_CONFIG");
  if (!explicitPath) return { discovered };
  const flag = opts.configFile ? "--config" : "MOPAC_CONFIG";
  if (!opts.configFile) envUsed.add("MOPAC_CONFIG");
  const file = resolve(ctx.cwd, explicitPath);
  files.claim(file);
  const explicit = await files.expand((await readConfigFile(file, { flag }))!);
  return { discovered, explicit };
}
