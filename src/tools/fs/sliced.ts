/**
 * Many small synchronous file calls (a stat or a read per file) in slices of at most
 * SLICE_MS, with the event loop served in between (timers, cancellation). For tens of
 * thousands of files this is several times faster than one async call per file,
 * which pays a promise round-trip each (measured on 50,000 small files).
 */
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
