/**
 * Waiting on conditions, never on fixed sleeps: `waitFor` polls until a check holds,
 * bounded by a generous deadline (two cores run many test files at once), and says
 * what it waited for when the deadline passes.
 */

/** Every bounded wait in the tests, unless a test has a reason for another. */
export const WAIT_MS = 60_000;

/** Polls `check` every 10 ms until it holds; throws naming `what` after `ms`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what = "condition",
  ms = WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls until `read` returns a value other than undefined, and returns it. */
export async function waitForValue<T>(
  read: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = WAIT_MS,
): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => (value = await read()) !== undefined, what, ms);
  return value!;
}
