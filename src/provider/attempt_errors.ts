/**
 * Maps whatever one attempt threw (SDK errors, fetch failures, our own stall and
 * cassette errors wrapped by the SDK) onto a ProviderError. Errors that are not
 * about the provider pass through unchanged: a missing Deno permission must
 * reach the CLI as itself (exit 2 naming the flag), and a bug must stay a bug.
 */
import { ProviderError } from "./errors.ts";
import type { Exchange } from "./attempt_fetch.ts";
import { classifyHttpError, classifyStreamError, type ErrorContext } from "./http_errors.ts";

export type AttemptPhase = "request" | "stream";

interface SdkErrorShape {
  status?: unknown;
  error?: unknown;
  headers?: unknown;
  cause?: unknown;
}

export function toProviderError(
  e: unknown,
  ex: Exchange,
  phase: AttemptPhase,
  ctx: ErrorContext,
  baseUrl: string,
): unknown {
  const own = ownError(e);
  if (own) return own;
  if (!(e instanceof Error)) return e;
  const err = e as Error & SdkErrorShape;
  if (isNotCapable(err) || isNotCapable(err.cause)) return isNotCapable(err) ? err : err.cause;

  if (typeof err.status === "number") {
    const headers = err.headers instanceof Headers ? err.headers : new Headers(ex.headers);
    const text = ex.text() || (err.error === undefined ? "" : JSON.stringify({ error: err.error }));
    return classifyHttpError(err.status, headers, text, ctx);
  }
  const sdkName = err.constructor?.name ?? "";
  if (sdkName === "APIError" && err.error !== undefined) return classifyStreamError(err.error, ctx);

  const detail = describe(err);
  if (phase === "stream") {
    return new ProviderError(
      "cut",
      `${ctx.label}: the stream was cut before the response finished (${detail})`,
      {
        cause: e,
      },
    );
  }
  const reason = connectFailure(err);
  return new ProviderError(
    "network",
    `${ctx.label}: cannot reach ${baseUrl}: ${reason ?? detail}`,
    {
      cause: e,
      hint: "check the provider's base URL and that the server is up",
      brief: reason ?? "cannot reach the provider",
    },
  );
}

/**
 * What a failed connection comes down to, from the innermost cause (the SDK wraps
 * fetch's TypeError, which wraps the runtime's error); undefined when it is none of these.
 */
function connectFailure(err: unknown): string | undefined {
  const texts: string[] = [];
  for (let cur = err, depth = 0; cur instanceof Error && depth < 6; depth++) {
    texts.push(cur.message);
    cur = cur.cause;
  }
  const all = texts.join("\n");
  if (/connection refused|ECONNREFUSED/i.test(all)) return "connection refused";
  if (
    /dns error|failed to lookup|name or service not known|ENOTFOUND|nodename nor servname/i.test(
      all,
    )
  ) {
    return "host not found (DNS)";
  }
  if (/connection reset|ECONNRESET/i.test(all)) return "connection reset";
  if (/timed out|ETIMEDOUT/i.test(all)) return "connection timed out";
  if (/certificate|tls|ssl/i.test(all)) return `TLS error: ${texts.at(-1)}`;
  return undefined;
}

/** Our own errors, possibly wrapped by the SDK as the `cause` of a connection error. */
function ownError(e: unknown): ProviderError | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 4 && cur; depth++) {
    if (cur instanceof ProviderError) return cur;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function isNotCapable(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable;
}

function describe(err: Error & SdkErrorShape): string {
  const cause = err.cause instanceof Error ? err.cause.message : "";
  const msg = err.message || err.name;
  return cause && !msg.includes(cause) ? `${msg}: ${cause}` : msg;
}
