/**
 * mopac's retry policy through the whole provider, with a fake clock: which
 * failures are retried, how long it waits, when it gives up at once, and that a
 * retry event always comes before the deltas of the new attempt.
 */
import assert from "node:assert/strict";
import { createProvider, type ProviderOptions } from "../../src/provider/provider.ts";
import { ProviderError } from "../../src/provider/errors.ts";
import { decideRetry, DEFAULT_RETRY_POLICY } from "../../src/provider/retry.ts";
import {
  collector,
  httpError,
  ok,
  type Scripted,
  scriptedFetch,
  sse,
  testModel,
  userRequest,
  WEATHER_TOOL,
} from "./helpers.ts";
import { fakeClock } from "../_support/fake_clock.ts";

const TEXT_OK = ok(sse(
  { choices: [{ index: 0, delta: { content: "Hello" } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
  "[DONE]",
));

function setup(script: Scripted[], opts: ProviderOptions = {}) {
  const clock = fakeClock();
  const served = scriptedFetch(script);
  const provider = createProvider(testModel(), {
    fetch: served.fetch,
    clock,
    random: () => 0.5,
    ...opts,
  });
  const { events, onEvent } = collector();
  return { clock, calls: served.calls, provider, events, onEvent };
}

Deno.test("429 with Retry-After: 1 → one retry, after at least 1000 ms", async () => {
  const s = setup([
    httpError(429, { error: { message: "slow down" } }, { "retry-after": "1" }),
    TEXT_OK,
  ]);
  const turn = await s.provider.complete(userRequest(), s.onEvent);
  assert.equal(s.calls.length, 2);
  assert.deepEqual(s.clock.sleeps, [1000]);
  assert.equal(s.events[0].type, "retry");
  const retry = s.events[0] as { attempt: number; delay_ms: number; reason: string };
  assert.equal(retry.attempt, 2);
  assert.ok(retry.delay_ms >= 1000);
  assert.match(retry.reason, /rate limited \(HTTP 429\): slow down/);
  assert.deepEqual(turn.parts, [{ type: "text", text: "Hello" }]);
});

Deno.test("500 twice then success → two retries with jittered backoff", async () => {
  const boom = httpError(500, { error: { message: "internal" } });
  const s = setup([boom, boom, TEXT_OK]);
  const turn = await s.provider.complete(userRequest(), s.onEvent);
  assert.equal(s.calls.length, 3);
  // Full jitter with random()=0.5: half of 1 s, then half of 2 s.
  assert.deepEqual(s.clock.sleeps, [500, 1000]);
  assert.deepEqual(s.events.map((e) => e.type), ["retry", "retry", "text"]);
  assert.equal(turn.finish_reason, "stop");
});

Deno.test("Retry-After: 3600 fails at once, without sleeping", async () => {
  const s = setup([
    httpError(429, { error: { message: "quota" } }, { "retry-after": "3600" }),
    TEXT_OK,
  ]);
  const err = await s.provider.complete(userRequest(), s.onEvent).catch((e) => e);
  assert.ok(err instanceof ProviderError);
  assert.equal(err.kind, "rate_limit");
  assert.equal(err.retryable, false);
  assert.match(err.message, /asks to wait 60 min, longer than the 60 s mopac waits/);
  assert.deepEqual(s.clock.sleeps, []);
  assert.equal(s.calls.length, 1);
  assert.deepEqual(s.events, []);
});

Deno.test("attempts are capped: five 503s give up with the reason", async () => {
  const busy = httpError(503, { error: { message: "overloaded" } });
  const s = setup([busy, busy, busy, busy, busy, TEXT_OK]);
  const err = await s.provider.complete(userRequest(), s.onEvent).catch((e) => e);
  assert.equal(s.calls.length, 5);
  assert.equal(err.kind, "server");
  assert.match(err.message, /overloaded \(gave up after 5 attempts\)/);
  assert.equal(s.clock.sleeps.length, 4);
});

Deno.test("401 is not retried and names the key's source", async () => {
  const s = setup([httpError(401, { error: { message: "Incorrect API key provided" } }), TEXT_OK]);
  const err = await s.provider.complete(userRequest(), s.onEvent).catch((e) => e);
  assert.equal(s.calls.length, 1);
  assert.equal(err.kind, "auth");
  assert.match(
    err.message,
    /testprov refused the credentials, the key comes from \$TESTPROV_API_KEY/,
  );
});

const CALL_START = {
  choices: [{
    index: 0,
    delta: {
      tool_calls: [{
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "weather", arguments: "" },
      }],
    },
  }],
};
const args = (a: string) => ({
  choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } }],
});
const TOOLS_DONE = { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] };

for (const how of ["ends cleanly", "is reset"] as const) {
  Deno.test(`a stream that ${how} mid tool-call arguments is retried; the call comes out once`, async () => {
    const partial = sse(
      { choices: [{ index: 0, delta: { content: "Let me look. " } }] },
      CALL_START,
      args('{"loca'),
    );
    const first = how === "is reset"
      ? { ...ok(partial + sse(args('tion":'))), resetAt: partial.length + 10 }
      : ok(partial);
    const full = ok(sse(
      { choices: [{ index: 0, delta: { content: "Let me look. " } }] },
      CALL_START,
      args('{"location":'),
      args('"Rome"}'),
      TOOLS_DONE,
      "[DONE]",
    ));
    const s = setup([first, full]);
    const turn = await s.provider.complete(userRequest("weather?", [WEATHER_TOOL]), s.onEvent);
    const types = s.events.map((e) => e.type);
    const r = types.indexOf("retry");
    assert.deepEqual(types.slice(0, r), ["text", "tool_call_start", "tool_call_delta"]);
    assert.deepEqual(
      types.slice(r + 1, r + 3),
      ["text", "tool_call_start"],
      "new deltas only after the retry",
    );
    assert.equal(types.filter((t) => t === "retry").length, 1);
    assert.match((s.events[r] as { reason: string }).reason, /cut/);
    assert.deepEqual(turn.parts, [
      { type: "text", text: "Let me look. " },
      { type: "tool_call", id: "call_1", name: "weather", input: '{"location":"Rome"}' },
    ]);
    assert.equal(turn.finish_reason, "tool_calls");
  });
}

Deno.test("a reset after finish_reason loses nothing and is not retried", async () => {
  const body = sse({ choices: [{ index: 0, delta: { content: "Hi" } }] }, {
    choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
  });
  const s = setup([{ ...ok(body + sse({ choices: [], usage: {} })), resetAt: body.length }]);
  const turn = await s.provider.complete(userRequest(), s.onEvent);
  assert.equal(s.calls.length, 1);
  assert.equal(turn.finish_reason, "stop");
  assert.equal(turn.usage.estimated, true);
});

Deno.test("an error chunk inside a 200 stream is retried when transient", async () => {
  const s = setup([ok(sse({ error: { message: "upstream disconnected", code: 502 } })), TEXT_OK]);
  await s.provider.complete(userRequest(), s.onEvent);
  assert.equal(s.calls.length, 2);
  assert.match(
    (s.events[0] as { reason: string }).reason,
    /inside the stream: upstream disconnected/,
  );
});

Deno.test("connection errors are retried as network errors", async () => {
  const s = setup([
    { throws: new TypeError("error sending request: connection refused") },
    TEXT_OK,
  ]);
  await s.provider.complete(userRequest(), s.onEvent);
  assert.equal(s.calls.length, 2);
  assert.match(
    (s.events[0] as { reason: string }).reason,
    /cannot reach http:\/\/127\.0\.0\.1:9\/v1: connection refused$/,
  );
});

Deno.test("a missing Deno permission passes through untouched and is not retried", async () => {
  const denied = new Deno.errors.NotCapable('Requires net access to "127.0.0.1:9"');
  const s = setup([{ throws: denied }, TEXT_OK]);
  const err = await s.provider.complete(userRequest(), s.onEvent).catch((e) => e);
  assert.equal(err, denied);
  assert.equal(s.calls.length, 1);
});

Deno.test("abort: before the call, and during the backoff sleep → AbortError, no retry", async () => {
  const before = setup([TEXT_OK]);
  const ac = new AbortController();
  ac.abort();
  const e1 = await before.provider.complete(userRequest("x", [], ac.signal), before.onEvent).catch((
    e,
  ) => e);
  assert.equal(e1.name, "AbortError");
  assert.equal(before.calls.length, 0);

  const ac2 = new AbortController();
  const during = setup([httpError(500, {}), TEXT_OK], {
    clock: {
      now: () => 0,
      sleep: (_ms, signal) => {
        ac2.abort();
        return Promise.reject(signal?.reason);
      },
    },
  });
  const e2 = await during.provider.complete(userRequest("x", [], ac2.signal), during.onEvent).catch(
    (e) => e,
  );
  assert.equal(e2.name, "AbortError");
  assert.equal(during.calls.length, 1);
});

Deno.test("decideRetry: the server's wait is a floor; backoff is capped", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, random: () => 0.999 };
  const rl = new ProviderError("rate_limit", "x", { retryAfterMs: 0 });
  assert.deepEqual(
    decideRetry(rl, 1, policy),
    { retry: true, delayMs: 999 },
    "0 ms is no reason to hurry",
  );
  const slow = new ProviderError("rate_limit", "x", { retryAfterMs: 45_000 });
  assert.deepEqual(decideRetry(slow, 1, policy), { retry: true, delayMs: 45_000 });
  const cut = new ProviderError("cut", "x");
  assert.deepEqual(decideRetry(cut, 4, policy), { retry: true, delayMs: 7992 });
  const far = decideRetry(cut, 4, { ...policy, maxAttempts: 10, baseDelayMs: 60_000 });
  assert.ok(far.retry && far.delayMs <= policy.maxBackoffMs);
  const bad = new ProviderError("bad_request", "x");
  assert.deepEqual(decideRetry(bad, 1, policy), { retry: false, error: bad });
});

Deno.test("an HTML page instead of a stream fails at once, with a snippet", async () => {
  const page = {
    status: 200,
    headers: { "content-type": "text/html" },
    body: "<html>Sign in</html>",
  };
  const s = setup([page, TEXT_OK]);
  const err = await s.provider.complete(userRequest(), s.onEvent).catch((e) => e);
  assert.equal(err.kind, "bad_request");
  assert.match(
    err.message,
    /not a chat-completions stream \(HTTP 200, text\/html\): <html>Sign in/,
  );
  assert.equal(s.calls.length, 1);
});

Deno.test("a base URL that is not a URL fails before any request", async () => {
  const p = createProvider(testModel({ base_url: "localhost:4000" }), {
    fetch: () => assert.fail("no fetch"),
  });
  const err = await p.complete(userRequest(), () => {}).catch((e) => e);
  assert.equal(err.kind, "bad_request");
  assert.match(err.message, /the base URL "localhost:4000" is not an http\(s\) URL/);
});
