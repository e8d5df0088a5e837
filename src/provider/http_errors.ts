/**
 * Turns a failed response into a ProviderError of the right kind. Providers
 * disagree on error shapes (`{"error":{…}}`, `{"detail":…}`, numeric or string
 * `code`, JSON sent as octet-stream), so everything here works from the status,
 * the headers and the raw body text rather than from an SDK error class.
 */
import { ProviderError, type ProviderErrorKind } from "./errors.ts";
import { retryAfterMsFrom } from "./retry_after.ts";

export interface ErrorContext {
  /** `provider/model`. */
  label: string;
  providerId: string;
  /** Where the API key comes from (`$OPENAI_API_KEY`, `providers.x.api_key`). */
  keySource: string;
  hasKey: boolean;
  nowMs: number;
}

const MAX_MESSAGE = 500;

/** A non-2xx HTTP response. */
export function classifyHttpError(
  status: number,
  headers: Headers,
  bodyText: string,
  ctx: ErrorContext,
): ProviderError {
  const body = parseJson(bodyText);
  const detail = messageOf(body) ?? (clip(bodyText.trim()) || "no body");
  const info = errorInfo(body);
  const opts = { status, retryAfterMs: retryAfterMsFrom(headers, body, ctx.nowMs) };
  const make = (kind: ProviderErrorKind, what: string, extra: object = {}) =>
    new ProviderError(kind, `${ctx.label}: ${what} (HTTP ${status}): ${detail}`, {
      ...opts,
      ...extra,
    });

  if (status === 401 || status === 403) {
    const keyNote = ctx.hasKey
      ? `the key comes from ${ctx.keySource}`
      : `no API key is set; mopac reads it from ${ctx.keySource}`;
    return make("auth", `${ctx.providerId} refused the credentials, ${keyNote}`, {
      hint: `check the API key in ${ctx.keySource}`,
    });
  }
  if (status === 429) {
    // A spent quota will not come back by waiting a few seconds.
    const quota = /insufficient_quota|quota_exceeded|billing/i.test(`${info.code} ${info.type}`);
    return make("rate_limit", quota ? "quota exhausted" : "rate limited", {
      retryable: !quota,
    });
  }
  if (isContextLength(detail, info)) {
    return make("context_length", "the request does not fit the model's context window", {
      retryable: false,
      hint: "the conversation must be summarised or shortened",
    });
  }
  if (status === 404) {
    return make("not_found", "model or endpoint not found", {
      hint: "check the model id and the provider's base URL",
    });
  }
  if (status === 408 || status === 409 || status === 425 || status >= 500) {
    return make("server", "server error", { retryable: true });
  }
  return make("bad_request", "request rejected");
}

/** An `{"error":{…}}` chunk or `event: error` inside a 200 stream. */
export function classifyStreamError(error: unknown, ctx: ErrorContext): ProviderError {
  const info = errorInfo({ error });
  const status = typeof info.statusCode === "number"
    ? info.statusCode
    : typeof info.code === "number"
    ? info.code
    : undefined;
  const detail = messageOf({ error }) ?? "unknown error";
  // A 4xx status means the same request would fail the same way again; without
  // a status the failure is most likely upstream and transient, unless the code
  // says the request itself was at fault.
  const code = String(info.code ?? info.type ?? "");
  const retryable = status !== undefined
    ? status === 408 || status === 429 || status >= 500
    : !/invalid|tool_use_failed|content_filter|context/i.test(code);
  return new ProviderError(
    "stream_error",
    `${ctx.label}: the provider reported an error inside the stream: ${detail}`,
    { status, retryable },
  );
}

interface ErrorInfo {
  code?: unknown;
  type?: unknown;
  statusCode?: unknown;
}

function errorInfo(body: unknown): ErrorInfo {
  const root = Array.isArray(body) ? body[0] : body;
  const err = (root as { error?: unknown } | undefined)?.error;
  if (!err || typeof err !== "object") return {};
  const e = err as Record<string, unknown>;
  return { code: e.code, type: e.type ?? e.status, statusCode: e.status_code };
}

const CONTEXT_PATTERNS = [
  /context[ _-]?(length|window)/i,
  /too many (prompt |input )?tokens/i,
  /too_many_prompt_tokens/i,
  /(prompt|input) (is )?too long/i,
  /messages? (is |are )?too long/i,
  /total length of all messages/i,
  /maximum (prompt|input) length/i,
  /reduce the length of (the )?(messages|prompt|either)/i,
];

function isContextLength(message: string, info: ErrorInfo = {}): boolean {
  const text = `${message} ${String(info.code ?? "")} ${String(info.type ?? "")}`;
  return CONTEXT_PATTERNS.some((p) => p.test(text));
}

/** The human part of an error body, whatever its shape. */
export function messageOf(body: unknown): string | undefined {
  const root = Array.isArray(body) ? body[0] : body;
  if (!root || typeof root !== "object") return undefined;
  const r = root as Record<string, unknown>;
  const err = r.error;
  let msg: string | undefined;
  if (typeof err === "string") msg = err;
  else if (err && typeof err === "object") {
    const e = err as Record<string, unknown>;
    if (typeof e.message === "string") msg = e.message;
    // OpenRouter wraps upstream failures as "Provider returned error" + metadata.raw.
    const raw = (e.metadata as { raw?: unknown } | undefined)?.raw;
    if (typeof raw === "string" && raw !== "") msg = msg ? `${msg}: ${raw}` : raw;
  }
  if (msg === undefined && typeof r.detail === "string") msg = r.detail;
  if (msg === undefined && Array.isArray(r.detail)) {
    msg = r.detail.map((d) => (d as { msg?: string })?.msg ?? JSON.stringify(d)).join("; ");
  }
  if (msg === undefined && typeof r.message === "string") msg = r.message;
  return msg === undefined ? undefined : clip(msg);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s;
}
