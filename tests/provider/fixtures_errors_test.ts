/**
 * Every recorded error response (HTTP errors and errors inside a 200 stream)
 * becomes a ProviderError of the right kind through the whole provider path.
 */
import assert from "node:assert/strict";
import { listFixtures, loadFixture } from "../_support/provider_fixtures.ts";
import { ProviderError, type ProviderErrorKind } from "../../src/provider/errors.ts";
import { isError, replay } from "./fixture_replay.ts";

const EXPECTED: Record<
  string,
  { kind: ProviderErrorKind; status?: number; retryAfterMs?: number }
> = {
  "azure/error-401-foundry.json": { kind: "auth", status: 401 },
  "deepseek/error-401.json": { kind: "auth", status: 401 },
  "mistral/error-401-detail.json": { kind: "auth", status: 401 },
  "ollama/error-401-cloud.json": { kind: "auth", status: 401 },
  "openai/error-401-invalid-api-key-stream-request.json": { kind: "auth", status: 401 },
  "openrouter/error-401.json": { kind: "auth", status: 401 },
  "perplexity/error-401.json": { kind: "auth", status: 401 },
  "together/error-401-invalid-api-key.json": { kind: "auth", status: 401 },
  // Retry-After: 1 and retry-after-ms: 0 disagree; the longer wait wins.
  "azure/error-429-retry-after-foundry.json": {
    kind: "rate_limit",
    status: 429,
    retryAfterMs: 1000,
  },
  // X-Ratelimit-Reset 1754667660000 (epoch ms) vs the test clock at the capture's Date.
  "openrouter/error-429-rate-limit.http": { kind: "rate_limit", status: 429, retryAfterMs: 26_000 },
  "openrouter/error-429-upstream-rate-limited.json": { kind: "rate_limit", status: 429 },
  "gemini/native-api-error-429-retry-info.body.json": {
    kind: "rate_limit",
    status: 429,
    retryAfterMs: 34_400,
  },
  "deepseek/error-400-context-length-octet-stream.json": { kind: "context_length", status: 400 },
  "openrouter/error-400-context-length.json": { kind: "context_length", status: 400 },
  "ollama/error-400-context-length-cloud.json": { kind: "context_length", status: 400 },
  "perplexity/error-400-too-many-prompt-tokens.json": { kind: "context_length", status: 400 },
  "openai/error-404-model-not-found-stream-request.json": { kind: "not_found", status: 404 },
  "groq/error-404-model-not-found.json": { kind: "not_found", status: 404 },
  "openai/error-400-invalid-request.json": { kind: "bad_request", status: 400 },
  "openai/error-400-unsupported-parameter.body.json": { kind: "bad_request", status: 400 },
  "openai/error-400-unsupported-value-system-role.json": { kind: "bad_request", status: 400 },
  "groq/error-400-tool-use-failed.json": { kind: "bad_request", status: 400 },
  "groq/gpt-oss-tool-use-failed-error-event.sse": { kind: "stream_error", status: 400 },
  "openrouter/minimax-error-mid-stream.sse": { kind: "stream_error", status: 400 },
};

Deno.test("every error fixture is listed here (a new one must be classified on purpose)", () => {
  const errors = listFixtures().filter((n) => !n.endsWith(".md") && isError(loadFixture(n)));
  assert.deepEqual(errors.sort(), Object.keys(EXPECTED).sort());
});

Deno.test("every error fixture gives a typed ProviderError of the right kind", async () => {
  for (const [name, want] of Object.entries(EXPECTED)) {
    const err = await replay(loadFixture(name)).then(
      () => assert.fail(`${name}: no error`),
      (e) => e,
    );
    assert.ok(err instanceof ProviderError, `${name}: ${err}`);
    assert.equal(err.kind, want.kind, `${name}: ${err.message}`);
    assert.equal(err.status, want.status, `${name}: status`);
    assert.equal(err.retryAfterMs, want.retryAfterMs, `${name}: retryAfterMs`);
    assert.equal(err.name, "ProviderError");
    assert.ok(err.message.startsWith("testprov/test-model: "), `${name}: ${err.message}`);
    assert.ok(!err.message.includes("undefined"), `${name}: ${err.message}`);
  }
});

Deno.test("401 messages name the provider and where the key comes from", async () => {
  const err = await replay(loadFixture("mistral/error-401-detail.json")).catch((e) => e);
  assert.ok(err instanceof ProviderError);
  assert.match(err.message, /testprov refused the credentials/);
  assert.match(err.message, /\$TESTPROV_API_KEY/);
  assert.match(err.message, /Invalid API Key/, "the {detail} body shape is read");
  assert.match(err.hint ?? "", /\$TESTPROV_API_KEY/);
});

Deno.test("in-stream error text reaches the message", async () => {
  const err = await replay(loadFixture("openrouter/minimax-error-mid-stream.sse")).catch((e) => e);
  assert.match(err.message, /inside the stream: Token limit reached/);
  assert.equal(err.retryable, false, "a 400 inside the stream is not worth a retry");
});
