/**
 * Breadth-first directory walk shared by ls, glob and the built-in grep. It never
 * follows symlinks (a link inside the workspace cannot lead the walk outside it),
 * honours .gitignore, and skips hidden entries the way ripgrep does: a hidden name
 * is skipped unless a .gitignore negation (`!name`) explicitly re-includes it.
 */
import * as path from "node:path";
import { ToolFailure } from "../failure.ts";
import { GitIgnoreTree } from "./gitignore.ts";
import { isMissing } from "./paths.ts";

export interface WalkEntry {
  /** Absolute path (under the walk root). */
  abs: string;
  /** Path relative to the root with forward slashes. */
  rel: string;
  name: string;
  isDir: boolean;
  /** A regular file (not a folder, symlink, FIFO, socket or device). */
  isFile: boolean;
  isSymlink: boolean;
  /** 1 for the root's direct children. */
  depth: number;
}

export interface WalkOptions {
  /** Absolute real path of a directory. */
  root: string;
  /** Yield dot-files and descend into dot-directories. */
  hidden?: boolean;
  /** Honour .gitignore files (default true). */
  gitignore?: boolean;
  /** Names never yielded nor entered, whatever the rules say (e.g. `.git`). */
  skipNames?: ReadonlySet<string>;
  /** Extra exclusion (e.g. ls's `ignore` patterns); excluded directories are not entered. */
  exclude?: (entry: WalkEntry) => boolean;
  /** Deepest level yielded (1 = the root's children only). Unlimited when absent. */
  maxDepth?: number;
  signal?: AbortSignal;
}

/** Names skipped by every walk: version-control internals are never project content. */
export const VCS_DIRS: ReadonlySet<string> = new Set([".git", ".hg", ".svn", ".jj"]);

/** Every entry the rules let through, breadth-first, one at a time. */
export async function* walk(options: WalkOptions): AsyncGenerator<WalkEntry> {
  for await (const batch of walkFolders(options)) yield* batch;
}

/**
 * The same walk, one folder's entries per step: cheaper per entry for whole-tree
 * scans (grep, glob) than a generator step per file.
 */
export async function* walkFolders(options: WalkOptions): AsyncGenerator<WalkEntry[]> {
  const rules = options.gitignore === false ? null : await GitIgnoreTree.create(options.root);
  const skip = options.skipNames ?? VCS_DIRS;
  const queue: Array<{ dir: string; rel: string; depth: number }> = [
    { dir: options.root, rel: "", depth: 0 },
  ];
  for (let head = 0; head < queue.length; head++) {
    options.signal?.throwIfAborted();
    const { dir, rel, depth } = queue[head];
    queue[head] = undefined!; // let the walked part of a huge queue be collected
    if (rules && depth > 0) await rules.load(dir);
    const verdict = rules ? rules.forDir(dir) : null;
    const batch: WalkEntry[] = [];
    for (const info of await readDirSorted(dir)) {
      if (skip.has(info.name)) continue;
      const said = verdict ? verdict(info.name, info.isDirectory) : "none";
      if (said === "ignored") continue;
      if (said === "none" && !options.hidden && info.name.startsWith(".")) continue;
      const entry: WalkEntry = {
        abs: path.join(dir, info.name),
        rel: rel === "" ? info.name : `${rel}/${info.name}`,
        name: info.name,
        isDir: info.isDirectory,
        isFile: info.isFile,
        isSymlink: info.isSymlink,
        depth: depth + 1,
      };
      if (options.exclude?.(entry)) continue;
      batch.push(entry);
      if (entry.isDir && (options.maxDepth === undefined || entry.depth < options.maxDepth)) {
        queue.push({ dir: entry.abs, rel: entry.rel, depth: entry.depth });
      }
    }
    if (batch.length > 0) yield batch;
  }
}

/** Entries of `dir` by name (byte order, like ripgrep's sorted output); [] when unreadable. */
async function readDirSorted(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const e of Deno.readDir(dir)) entries.push(e);
  } catch {
    return entries; // vanished or unreadable folders are skipped, as ripgrep does
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Refuses unless `real` is an existing folder (messages name the path as the model gave it). */
export async function requireFolder(real: string, shown: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch (err) {
    if (isMissing(err)) throw new ToolFailure(`Path does not exist: ${shown}`);
    throw err;
  }
  if (!info.isDirectory) throw new ToolFailure(`Not a folder: ${shown}. Use view to read a file.`);
}
