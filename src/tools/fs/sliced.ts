/**
 * Many small synchronous file calls (a stat or a read per file) in slices of at most
 * SLICE_MS, with the event loop served in between (timers, cancellation). For tens of
 * thousands of files this is several times faster than one async call per file,
 * which pays a promise round-trip each (measured on 50,000 small files). Glob and
 * grep stat their results this way to sort them newest first, like crush.
 */
import { mtimeOf } from "./paths.ts";
const SLICE_MS = 15;

/** Calls `fn` on each item in order; throws the signal's reason when it aborts between slices. */
export async function forEachSliced<T>(
  items: Iterable<T>,
  signal: AbortSignal | undefined,
  fn: (item: T) => void,
): Promise<void> {
  let sliceStart = performance.now();
  for (const item of items) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      signal?.throwIfAborted();
      sliceStart = performance.now();
    }
    fn(item);
  }
}

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
