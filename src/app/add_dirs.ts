/**
 * `--add-dir DIR`: more folders the run's file tools read and write, and the OS jail
 * mounts writable, as they do the workspace. Each is the operator's (a flag) and
 * never widens `paths.deny`, which holds in it too. A folder that holds mopac's own
 * state (the data dir, the operator's config folders) is refused: the model would
 * otherwise rewrite its sessions or the next run's config.
 */
import { join, resolve } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import { realPathOf, SYSTEM_CONFIG_FILE, userDirs, within } from "../config/mod.ts";
import type { Need } from "../deno_perms/needs.ts";
import type { Profile } from "../permission/profiles.ts";
import { UsageError } from "../util/errors.ts";
import { readEnv } from "../util/env.ts";

const FLAG = "--add-dir";
const WRITE_TOOLS = new Set(["edit", "multiedit", "write"]);

/** The folders as real paths, checked: each exists, is a folder, and holds no mopac state. */
export async function resolveAddDirs(
  dirs: readonly string[] | undefined,
  ctx: { cwd: string; loaded: LoadedConfig },
): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs ?? []) {
    const path = resolve(ctx.cwd, dir);
    let real: string;
    try {
      real = await Deno.realPath(path);
      if (!(await Deno.stat(real)).isDirectory) {
        throw new UsageError(`${FLAG} ${dir}: not a directory`);
      }
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new UsageError(`${FLAG} ${dir}: no such directory (${path})`);
      }
      throw err;
    }
    const held = await firstInside(protectedPaths(ctx.loaded), real);
    if (held) {
      throw new UsageError(`${FLAG} ${dir}: it holds ${held}, which the model may not change`, {
        hint: "add a folder that holds neither mopac's data dir nor its config",
      });
    }
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

/** The first of `paths` inside `dir`, by its path or by its real path. */
async function firstInside(paths: string[], dir: string): Promise<string | undefined> {
  for (const p of paths) if (within(p, dir) || within(await realPathOf(p), dir)) return p;
  return undefined;
}

/** What mopac keeps for itself: the data dir and the operator's config folders and files. */
function protectedPaths(loaded: LoadedConfig): string[] {
  const { configHome, dataHome } = userDirs(readEnv);
  return [
    loaded.dataDir,
    ...[configHome, dataHome].flatMap((d) => (d ? [join(d, "mopac")] : [])),
    SYSTEM_CONFIG_FILE,
    ...loaded.files.filter((f) => !loaded.project.files.includes(f)),
  ];
}

/** The profile with the folders added (a no-op without any). */
export function withAddDirs(profile: Profile, dirs: readonly string[]): Profile {
  if (dirs.length === 0) return profile;
  return { ...profile, paths: { ...profile.paths, dirs: [...dirs] } };
}

/** Deno's permissions the folders need: read for the file tools, write when they write. */
export function addDirNeeds(dirs: readonly string[], tools: readonly string[]): Need[] {
  const writes = tools.some((t) => WRITE_TOOLS.has(t));
  return dirs.flatMap((path): Need[] => [
    { kind: "read", path, why: FLAG },
    ...(writes ? [{ kind: "write" as const, path, why: FLAG }] : []),
  ]);
}
