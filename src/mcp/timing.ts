/** Small timer helpers that always clear their timer, so no test sees a leaked one. */

export const TIMED_OUT: unique symbol = Symbol("timed out");

/** Resolves with the promise's value, or with TIMED_OUT after `ms`. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((r) => timer = setTimeout(() => r(TIMED_OUT), ms));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
