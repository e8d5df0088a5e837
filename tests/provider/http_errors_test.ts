/**
 * Error classification and wait hints on hand-made responses, for the shapes the
 * recordings do not cover (HTTP dates, quota errors, 5xx, odd bodies).
 */
import assert from "node:assert/strict";
import {
  classifyHttpError,
  classifyStreamError,
  type ErrorContext,
  messageOf,
} from "../../src/provider/http_errors.ts";
import { parseRetryAfter, retryAfterMsFrom } from "../../src/provider/retry_after.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const ctx: ErrorContext = {
  label: "acme/m1",
  providerId: "acme",
  keySource: "$ACME_API_KEY",
  hasKey: true,
  nowMs: NOW,
};
const h = (o: Record<string, string> = {}) => new Headers(o);
const body = (message: string, extra: object = {}) =>
  JSON.stringify({ error: { message, ...extra } });

Deno.test("Retry-After as seconds, as an HTTP date, retry-after-ms, and the longest wins", () => {
  assert.equal(parseRetryAfter("2", NOW), 2000);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", NOW), 30_000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", NOW), 0, "a past date: no wait");
  assert.equal(parseRetryAfter("soon", NOW), undefined);
  assert.equal(retryAfterMsFrom(h({ "retry-after-ms": "1500" }), undefined, NOW), 1500);
  assert.equal(
    retryAfterMsFrom(h({ "retry-after-ms": "0", "retry-after": "1" }), undefined, NOW),
    1000,
  );
  assert.equal(
    retryAfterMsFrom(h({ "x-ratelimit-reset": String(NOW / 1000 + 5) }), undefined, NOW),
    5000,
  );
  assert.equal(
    retryAfterMsFrom(h({ "x-ratelimit-reset": String(NOW - 1) }), undefined, NOW),
    undefined,
  );
  assert.equal(retryAfterMsFrom(h(), undefined, NOW), undefined);
});

Deno.test("HTTP statuses map to kinds; retryable only where another try can help", () => {
  const cases: Array<[number, string, string, boolean]> = [
    [401, body("bad key"), "auth", false],
    [403, body("forbidden"), "auth", false],
    [404, body("no such model"), "not_found", false],
    [408, body("timeout"), "server", true],
    [409, body("conflict"), "server", true],
    [429, body("slow down"), "rate_limit", true],
    [
      429,
      body("You exceeded your current quota", { code: "insufficient_quota" }),
      "rate_limit",
      false,
    ],
    [500, "<html>oops</html>", "server", true],
    [503, "", "server", true],
    [413, body("Request too large: input is too long for this model"), "context_length", false],
    [400, body("x", { code: "context_length_exceeded" }), "context_length", false],
    [422, JSON.stringify({ detail: [{ msg: "field required" }] }), "bad_request", false],
    [400, body("Unsupported parameter: 'max_tokens'"), "bad_request", false],
  ];
  for (const [status, text, kind, retryable] of cases) {
    const e = classifyHttpError(status, h(), text, ctx);
    assert.equal(e.kind, kind, `${status} ${text}`);
    assert.equal(e.retryable, retryable, `${status} ${text}: retryable`);
    assert.equal(e.status, status);
  }
});

Deno.test("messages: the provider's words, whatever the body shape", () => {
  assert.equal(messageOf({ error: { message: "m" } }), "m");
  assert.equal(messageOf({ error: "plain" }), "plain");
  assert.equal(messageOf({ detail: "Invalid API Key" }), "Invalid API Key");
  assert.equal(messageOf({ detail: [{ msg: "a" }, { msg: "b" }] }), "a; b");
  assert.equal(messageOf([{ error: { message: "in array" } }]), "in array");
  assert.equal(
    messageOf({ error: { message: "Provider returned error", metadata: { raw: "upstream 429" } } }),
    "Provider returned error: upstream 429",
  );
  const html = classifyHttpError(502, h(), "<html>Bad Gateway</html>", ctx);
  assert.equal(html.message, "acme/m1: server error (HTTP 502): <html>Bad Gateway</html>");
  assert.equal(
    classifyHttpError(503, h(), "", ctx).message,
    "acme/m1: server error (HTTP 503): no body",
  );
});

Deno.test("auth errors say where the key comes from, or that none is set", () => {
  const withKey = classifyHttpError(401, h(), body("nope"), ctx);
  assert.match(withKey.message, /acme refused the credentials, the key comes from \$ACME_API_KEY/);
  assert.equal(withKey.hint, "check the API key in $ACME_API_KEY");
  const none = classifyHttpError(401, h(), body("nope"), { ...ctx, hasKey: false });
  assert.match(none.message, /no API key is set; mopac reads it from \$ACME_API_KEY/);
});

Deno.test("errors inside a 200 stream: retried unless the request itself was at fault", () => {
  const cases: Array<[unknown, boolean]> = [
    [{ message: "Token limit reached", code: 400 }, false],
    [{ message: "tool call validation failed", code: "tool_use_failed", status_code: 400 }, false],
    [{ message: "upstream disconnected", code: 502 }, true],
    [{ message: "overloaded", type: "server_error" }, true],
    [{ message: "who knows" }, true],
    [{ message: "bad", type: "invalid_request_error" }, false],
  ];
  for (const [error, retryable] of cases) {
    const e = classifyStreamError(error, ctx);
    assert.equal(e.kind, "stream_error");
    assert.equal(e.retryable, retryable, JSON.stringify(error));
  }
});
