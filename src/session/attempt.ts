/**
 * Runs synchronous work behind a Promise-returning API: a throw becomes a rejection,
 * so callers see one failure mode whether the work was sync or not.
 */
export function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
