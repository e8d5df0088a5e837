/**
 * Reads how long a server asked us to wait. Providers say it in different places:
 * `retry-after-ms` (OpenAI, Azure), `Retry-After` in seconds or as an HTTP date,
 * `X-RateLimit-Reset` as an epoch (OpenRouter), or a google.rpc.RetryInfo
 * `retryDelay` in the body (Gemini). When several disagree (Azure sends
 * `Retry-After: 1` with `retry-after-ms: 0`) the longest wins: waiting a little
 * too long costs less than being throttled again.
 */

export function retryAfterMsFrom(
  headers: Headers,
  body: unknown,
  nowMs: number,
): number | undefined {
  const hints: number[] = [];
  const push = (ms: number | undefined) => {
    if (ms !== undefined && Number.isFinite(ms) && ms >= 0) hints.push(Math.ceil(ms));
  };

  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") push(Number(ms));

  const ra = headers.get("retry-after");
  if (ra !== null && ra.trim() !== "") push(parseRetryAfter(ra, nowMs));

  const reset = headers.get("x-ratelimit-reset");
  if (reset !== null && /^\d+(\.\d+)?$/.test(reset.trim())) {
    push(epochToDelay(Number(reset), nowMs));
  }

  push(retryDelayInBody(body));
  return hints.length > 0 ? Math.max(...hints) : undefined;
}

/** `Retry-After` is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** An epoch in ms (13 digits) or s (10 digits); a reset already past means no hint. */
function epochToDelay(value: number, nowMs: number): number | undefined {
  const atMs = value > 1e12 ? value : value > 1e9 ? value * 1000 : undefined;
  if (atMs === undefined || atMs <= nowMs) return undefined;
  return atMs - nowMs;
}

/** google.rpc.RetryInfo: `{"error":{"details":[{"retryDelay":"34.4s"}]}}`, maybe inside an array. */
function retryDelayInBody(body: unknown): number | undefined {
  const root = Array.isArray(body) ? body[0] : body;
  const details = (root as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown })?.retryDelay;
    if (typeof delay === "string") {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (m) return Number(m[1]) * 1000;
    }
  }
  return undefined;
}
