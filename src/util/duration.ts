/**
 * Durations as people write them in config and flags: a number of seconds
 * (`600`, `"600"`) or units (`"500ms"`, `"90s"`, `"10m"`, `"1h30m"`, `"2h"`).
 * Kept in one place so config, flags and env all accept exactly the same forms.
 */

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

/**
 * The longest time a timer can wait (2^31-1 ms, about 24.8 days): a longer setTimeout
 * fires at once, so "1000h" would end a run immediately. Longer durations are capped.
 */
export const MAX_TIMER_SECONDS = 2_147_483;

/** Seconds in `value` (at most MAX_TIMER_SECONDS), or undefined when it is not a duration. */
export function parseDurationSeconds(value: unknown): number | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) && value >= 0 ? Math.min(value, MAX_TIMER_SECONDS) : undefined;
  }
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.min(Number(text), MAX_TIMER_SECONDS);
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNIT_SECONDS[unit];
  return Math.min(total, MAX_TIMER_SECONDS);
}

/** The accepted forms, for error messages. */
export const DURATION_FORMS = 'a number of seconds or a string like "90s", "10m", "1h30m"';
