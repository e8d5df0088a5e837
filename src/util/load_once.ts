/**
 * A module loaded at its first use instead of at start (`import()` inside the
 * function): every caller shares the one load, and a load that failed is tried again
 * by the next caller instead of failing every later one.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    pending ??= load().catch((err) => {
      pending = undefined;
      throw err;
    });
}

/**
 * A value made at its first use instead of at start (a schema a run may never need),
 * then kept: every caller gets the same one.
 */
export function madeOnce<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
