/**
 * Record a run to a cassette, replay it with no network at all, and fail clearly
 * when the replayed run asks for something the cassette does not hold.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createProvider } from "../../src/provider/provider.ts";
import { ProviderError } from "../../src/provider/errors.ts";
import type { ChatRequest, StreamEvent } from "../../src/provider/types.ts";
import {
  collector,
  httpError,
  ok,
  scriptedFetch,
  sse,
  testModel,
  userRequest,
  WEATHER_TOOL,
} from "./helpers.ts";
import { loadFixture } from "../_support/provider_fixtures.ts";
import { fakeClock } from "../_support/fake_clock.ts";

const SECRET = "sk-test-secret-1234";
const noNetwork: typeof fetch = () => {
  throw new Error("replay must not touch the network");
};

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "mopac-cassette-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const model = testModel({
  api_key: SECRET,
  extra_headers: { Authorization: `Bearer ${SECRET}` },
  extra_body: { metadata: { api_key: "other-secret-value", team: "infra" } },
});
const toolCall = loadFixture("openai/gpt-4o-tool-call.sse");
const followup = loadFixture("openai/gpt-4o-tool-call.followup.sse");

async function run(req: ChatRequest, fetchImpl: typeof fetch, extra: object) {
  const p = createProvider(model, {
    fetch: fetchImpl,
    clock: fakeClock(),
    random: () => 0,
    ...extra,
  });
  const { events, onEvent } = collector();
  const turn = await p.complete(req, onEvent);
  return { turn, events };
}

Deno.test("record then replay: same turns and events, no network, no secrets on disk", async () => {
  await withDir(async (dir) => {
    const cassette = join(dir, "run.jsonl");
    const served = scriptedFetch([
      httpError(500, { error: { message: "flaky" } }),
      toolCall,
      followup,
    ]);
    const req1 = userRequest("weather in Florence?", [WEATHER_TOOL]);
    const rec1 = await run(req1, served.fetch, { recordPath: cassette });
    const rec2 = await run(userRequest("and now?", [WEATHER_TOOL]), served.fetch, {
      recordPath: cassette,
    });

    const text = await Deno.readTextFile(cassette);
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 3, "the failed attempt is recorded too");
    assert.deepEqual(lines.map((l) => l.response.status), [500, 200, 200]);
    assert.equal(lines[1].request.path, "/v1/chat/completions");
    assert.equal(lines[1].request.body.model, "test-model");
    assert.equal(lines[1].response.body, toolCall.body, "raw SSE text, byte for byte");
    assert.equal(lines[1].request.body.metadata.api_key, "[REDACTED]");
    assert.equal(lines[1].request.body.metadata.team, "infra");
    assert.ok(!text.includes(SECRET), "the API key never reaches the cassette");
    assert.ok(!text.includes("other-secret-value"));
    assert.ok(!/authorization/i.test(text));

    const rep1 = await run(req1, noNetwork, { replayPath: cassette });
    const rep2 = await run(userRequest("and now?", [WEATHER_TOOL]), noNetwork, {
      replayPath: cassette,
    });
    assert.deepEqual(rep1, rec1);
    assert.deepEqual(rep2, rec2);
    assert.equal(rep1.events[0].type, "retry", "the recorded failure replays as a retry");
  });
});

Deno.test("replay fails clearly when the run asks for more than the cassette holds", async () => {
  await withDir(async (dir) => {
    const cassette = join(dir, "short.jsonl");
    const served = scriptedFetch([toolCall]);
    await run(userRequest("x", [WEATHER_TOOL]), served.fetch, { recordPath: cassette });

    const p = createProvider(model, { fetch: noNetwork, replayPath: cassette, clock: fakeClock() });
    const events: StreamEvent[] = [];
    await p.complete(userRequest("x", [WEATHER_TOOL]), (e) => events.push(e));
    const err = await p.complete(userRequest("y", [WEATHER_TOOL]), (e) => events.push(e)).catch((
      e,
    ) => e);
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, "bad_request");
    assert.equal(err.retryable, false);
    assert.match(
      err.message,
      /holds 1 request\(s\); the run asked for request #2 \(model test-model/,
    );
    assert.ok(!events.some((e) => e.type === "retry"), "not retried");
  });
});

Deno.test("replay refuses a different model or tool set", async () => {
  await withDir(async (dir) => {
    const cassette = join(dir, "c.jsonl");
    await run(userRequest("x", [WEATHER_TOOL]), scriptedFetch([toolCall]).fetch, {
      recordPath: cassette,
    });

    const other = createProvider(testModel({ model_id: "other-model" }), { replayPath: cassette });
    const e1 = await other.complete(userRequest("x", [WEATHER_TOOL]), () => {}).catch((e) => e);
    assert.match(
      e1.message,
      /recorded request #1 for model test-model with tools \[weather\], but this run asks for model other-model/,
    );

    const noTools = createProvider(model, { replayPath: cassette });
    const e2 = await noTools.complete(userRequest("x", []), () => {}).catch((e) => e);
    assert.equal(e2.kind, "bad_request");
    assert.match(e2.message, /asks for model test-model with tools \[\]/);
  });
});

Deno.test("a missing or broken cassette is a clear error", async () => {
  await withDir(async (dir) => {
    const missing = createProvider(model, { replayPath: join(dir, "nope.jsonl") });
    const e1 = await missing.complete(userRequest(), () => {}).catch((e) => e);
    assert.equal(e1.kind, "bad_request");
    assert.match(e1.message, /cannot read the cassette .*nope\.jsonl/);

    const broken = join(dir, "broken.jsonl");
    await Deno.writeTextFile(broken, '{"request":{},"response":{"status":200,"body":""}}\n{oops\n');
    const e2 = await createProvider(model, { replayPath: broken }).complete(userRequest(), () => {})
      .catch((e) => e);
    assert.match(e2.message, /broken\.jsonl is broken at line 2/);
  });
});

Deno.test("a recorded in-stream error replays as the same error", async () => {
  await withDir(async (dir) => {
    const cassette = join(dir, "err.jsonl");
    const body = sse({ error: { message: "Token limit reached", code: 400 } });
    const first = await run(userRequest(), scriptedFetch([ok(body)]).fetch, {
      recordPath: cassette,
    })
      .catch((e) => e);
    const again = await run(userRequest(), noNetwork, { replayPath: cassette }).catch((e) => e);
    assert.equal(again.kind, "stream_error");
    assert.equal(again.message, first.message);
  });
});
