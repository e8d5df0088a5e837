/**
 * Modification times of many files: glob and grep sort their results newest first,
 * like crush. A grep matching 50,000 files needs 50,000 stats, so they are made
 * synchronously in slices (sliced.ts).
 */
import { mtimeOf } from "./paths.ts";
import { forEachSliced } from "./sliced.ts";

/** mtime (ms) of each path; files that vanished or cannot be read are left out. */
export async function mtimes(paths: string[], signal?: AbortSignal): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await forEachSliced(paths, signal, (p) => {
    try {
      out.set(p, mtimeOf(Deno.statSync(p)));
    } catch {
      // vanished since the search, or unreadable: left out
    }
  });
  return out;
}

/** Newest first; equal times by path so the order is stable across runs. */
export function byNewest<T extends { path: string; mtime: number }>(a: T, b: T): number {
  if (a.mtime !== b.mtime) return b.mtime - a.mtime;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
