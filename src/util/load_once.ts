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
