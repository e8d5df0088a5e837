/**
 * The one error type the provider layer throws when a model call fails for good.
 * `kind` says what went wrong in terms a caller can act on (summarise on
 * `context_length`, stop at once on `auth`, …); `retryable` is what the retry
 * policy reads, so classification and policy stay separate.
 */
import { MopacError } from "../util/errors.ts";

export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "context_length"
  | "server"
  | "network"
  | "cut"
  | "stalled"
  | "bad_request"
  | "not_found"
  | "stream_error";

/** Kinds that are worth another attempt unless the error says otherwise. */
const RETRYABLE_BY_DEFAULT = new Set<ProviderErrorKind>([
  "rate_limit",
  "server",
  "network",
  "cut",
  "stalled",
]);

export interface ProviderErrorOptions {
  status?: number;
  retryable?: boolean;
  /** The wait the server asked for (Retry-After and friends), in ms. */
  retryAfterMs?: number;
  hint?: string;
  cause?: unknown;
  /**
   * The reason in a few words, for the line that announces a retry (the message may
   * name the model and the URL, which the final error says once).
   */
  brief?: string;
}

export class ProviderError extends MopacError {
  override name = "ProviderError";
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly brief?: string;

  constructor(kind: ProviderErrorKind, message: string, options: ProviderErrorOptions = {}) {
    super(message, { hint: options.hint, cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(kind);
    this.retryAfterMs = options.retryAfterMs;
    this.brief = options.brief;
  }
}

/** What `complete()` throws when the caller's signal aborts: never retried. */
export function abortError(): DOMException {
  return new DOMException("the model request was aborted", "AbortError");
}
