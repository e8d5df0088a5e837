/**
 * mopac's retry policy (the one place that retries, so failures in the middle
 * of a stream are covered too). Retryable errors wait with exponential backoff
 * and full jitter, and never less than the server asked; a server asking for
 * more than the cap (quota resets measured in hours) fails at once with the
 * reason instead of hanging the run.
 */
import { ProviderError } from "./errors.ts";

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  /** A requested wait above this fails at once. */
  maxRetryDelayMs: number;
  /** First backoff ceiling; doubles per attempt. */
  baseDelayMs: number;
  /** Backoff ceiling never exceeds this. */
  maxBackoffMs: number;
  /** In [0, 1); injectable so tests can pin the jitter. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  maxRetryDelayMs: 60_000,
  baseDelayMs: 1_000,
  maxBackoffMs: 30_000,
  random: Math.random,
};

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; error: ProviderError };

/** Decides what to do after `attempt` (1-based) failed with `err`. */
export function decideRetry(
  err: ProviderError,
  attempt: number,
  policy: RetryPolicy,
): RetryDecision {
  if (!err.retryable) return { retry: false, error: err };
  const base = { status: err.status, retryable: false, retryAfterMs: err.retryAfterMs, cause: err };
  if (err.retryAfterMs !== undefined && err.retryAfterMs > policy.maxRetryDelayMs) {
    const msg = `${err.message} — the provider asks to wait ${formatMs(err.retryAfterMs)}, ` +
      `longer than the ${formatMs(policy.maxRetryDelayMs)} mopac waits, so it gives up now`;
    return { retry: false, error: new ProviderError(err.kind, msg, { ...base, hint: err.hint }) };
  }
  if (attempt >= policy.maxAttempts) {
    const msg = `${err.message} (gave up after ${attempt} attempt${attempt === 1 ? "" : "s"})`;
    return { retry: false, error: new ProviderError(err.kind, msg, { ...base, hint: err.hint }) };
  }
  const ceiling = Math.min(policy.maxBackoffMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const backoff = Math.round(policy.random() * ceiling);
  // The server's wait is a floor: a `retry-after-ms: 0` must not burn every attempt at once.
  return { retry: true, delayMs: Math.max(err.retryAfterMs ?? 0, backoff) };
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const min = Math.round(s / 60);
  return min < 120 ? `${min} min` : `${(min / 60).toFixed(1)} h`;
}
