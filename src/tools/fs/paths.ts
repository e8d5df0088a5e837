/**
 * Path resolution for the file tools. The permission gate decides on REAL paths
 * (symlinks resolved), so a link inside the workspace that points outside is seen
 * for what it is. A path that does not exist yet resolves through its longest
 * existing ancestor, so creating `link/new.txt` reports where the file would land.
 */
import * as path from "node:path";

export interface ResolvedPath {
  /** Absolute, normalised, symlinks NOT resolved: what the model asked for. */
  absolute: string;
  /** Absolute with every symlink resolved (through the longest existing ancestor). */
  real: string;
}

/** Symlink hops allowed before a chain is called a loop (Linux uses 40 too). */
const MAX_LINK_HOPS = 40;

/** Resolves `input` against `base` (the workspace) into its lexical and real absolute forms. */
export async function resolvePath(input: string, base: string): Promise<ResolvedPath> {
  const absolute = path.resolve(base, input);
  return { absolute, real: await realPathOf(absolute) };
}

/**
 * Real path of `p`, which need not exist. Dangling symlinks are followed to where
 * they point; parts the process may not read (Deno permissions) stay lexical.
 */
async function realPathOf(p: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links: ${p}`);
  try {
    return await Deno.realPath(p);
  } catch (err) {
    if (!isMissing(err)) {
      if (err instanceof Deno.errors.NotCapable) return p;
      throw err;
    }
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realPathOf(parent, hops);
  const candidate = path.join(realParent, path.basename(p));
  try {
    const info = await Deno.lstat(candidate);
    if (info.isSymlink) {
      // A dangling link: the file would be created where it points.
      const target = await Deno.readLink(candidate);
      return await realPathOf(path.resolve(realParent, target), hops + 1);
    }
  } catch (err) {
    if (!isMissing(err) && !(err instanceof Deno.errors.NotCapable)) throw err;
  }
  return candidate;
}

/** Errors that mean "no such file" (also ENOTDIR: a file where a folder was expected). */
export function isMissing(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}

/** Modification time in ms, 0 when the platform gives none. */
export function mtimeOf(info: Deno.FileInfo): number {
  return info.mtime?.getTime() ?? 0;
}
