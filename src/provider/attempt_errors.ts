/**
 * Maps whatever one attempt threw (an HTTP status outside 2xx, fetch failures, our
 * own stall and cassette errors, possibly wrapped as a cause) onto a ProviderError.
 * Errors that are not about the provider pass through unchanged: a missing Deno
 * permission must reach the CLI as itself (exit 2 naming the flag), and a bug must
 * stay a bug.
 */
import { ProviderError } from "./errors.ts";
import type { Exchange } from "./attempt_fetch.ts";
import { classifyHttpError, type ErrorContext } from "./http_errors.ts";
import { HttpStatusError } from "./chat_post.ts";

export type AttemptPhase = "request" | "stream";

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
  const err = e;
  if (isNotCapable(err) || isNotCapable(err.cause)) return isNotCapable(err) ? err : err.cause;
  if (err instanceof HttpStatusError) {
    return classifyHttpError(err.status, err.headers, ex.text(), ctx);
  }

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
 * What a failed connection comes down to, from the innermost cause (fetch's TypeError
 * may wrap the runtime's error); undefined when it is none of these.
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

/** Our own errors, possibly wrapped as the `cause` of a connection error. */
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

function describe(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause.message : "";
  const msg = err.message || err.name;
  return cause && !msg.includes(cause) ? `${msg}: ${cause}` : msg;
}
