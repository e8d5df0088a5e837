/**
 * Waiting for work with a deadline. The timer is always cleared and the abort
 * listener removed, so a wait that ended leaves nothing behind that keeps the
 * process (or a test) alive.
 */

/**
 * True when `work` finishes within `ms`; false when the time runs out or `signal`
 * aborts first (also when it was aborted already). A rejection of `work` is passed on.
 */
export async function finishedWithin(
  work: Promise<unknown>,
  ms: number,
  signal?: AbortSignal,
): Promise<boolean> {
  if (signal?.aborted) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onAbort = () => resolve(false);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then(() => true), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
