/**
 * Modification times of many files: glob and grep sort their results newest first,
 * like crush. Synchronous stats in short slices with the event loop served in
 * between: a grep matching 50,000 files needs 50,000 stats, and one async call per
 * file costs several times more than the stat itself.
 */
import { mtimeOf } from "./paths.ts";

const SLICE_MS = 15;

/** mtime (ms) of each path; files that vanished or cannot be read are left out. */
export async function mtimes(paths: string[], signal?: AbortSignal): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let sliceStart = performance.now();
  for (const p of paths) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      signal?.throwIfAborted();
      sliceStart = performance.now();
    }
    try {
      out.set(p, mtimeOf(Deno.statSync(p)));
    } catch {
      // vanished since the search, or unreadable: left out
    }
  }
  return out;
}

/** Newest first; equal times by path so the order is stable across runs. */
export function byNewest<T extends { path: string; mtime: number }>(a: T, b: T): number {
  if (a.mtime !== b.mtime) return b.mtime - a.mtime;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
