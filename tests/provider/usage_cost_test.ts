/**
 * Usage and cost accounting against hand-computed values: cached input at the
 * cached price, the rest at the full price, estimates marked as estimates.
 */
import assert from "node:assert/strict";
import { addUsage, costOf } from "../../src/domain/usage.ts";
import { estimateUsage, parseUsage } from "../../src/provider/usage.ts";
import { createProvider } from "../../src/provider/provider.ts";
import { loadFixture } from "../_support/provider_fixtures.ts";
import { ok, scriptedFetch, sse, testModel, userRequest } from "./helpers.ts";

const PRICES = { input: 3, output: 15, cached_input: 0.3 };

Deno.test("costOf: cached input at the cached rate, the rest at the input rate", () => {
  // (6 000 × 3 + 4 000 × 0.3 + 2 000 × 15) / 1e6 = (18 000 + 1 200 + 30 000) / 1e6 = $0.0492
  const usage = { input_tokens: 10_000, cached_input_tokens: 4_000, output_tokens: 2_000 };
  assert.equal(costOf(usage, PRICES), 0.0492);
  assert.equal(costOf({ ...usage, cached_input_tokens: 0 }, PRICES), 0.06);
  // Cached tokens are part of input; a provider reporting more cached than input is clamped.
  assert.equal(
    costOf({ input_tokens: 100, cached_input_tokens: 500, output_tokens: 0 }, PRICES),
    0.00003,
  );
  assert.equal(costOf(usage, { input: 0, output: 0, cached_input: 0 }), 0);
});

Deno.test("parseUsage reads cached and reasoning tokens from every known shape", () => {
  assert.deepEqual(
    parseUsage({
      prompt_tokens: 1000,
      completion_tokens: 200,
      total_tokens: 1200,
      prompt_tokens_details: { cached_tokens: 600 },
      completion_tokens_details: { reasoning_tokens: 50 },
    }),
    { input_tokens: 1000, output_tokens: 200, cached_input_tokens: 600, reasoning_tokens: 50 },
  );
  // DeepSeek
  assert.equal(
    parseUsage({ prompt_tokens: 90, completion_tokens: 1, prompt_cache_hit_tokens: 64 })
      ?.cached_input_tokens,
    64,
  );
  // LiteLLM passing Anthropic's field through
  assert.equal(
    parseUsage({ prompt_tokens: 90, completion_tokens: 1, cache_read_input_tokens: 80 })
      ?.cached_input_tokens,
    80,
  );
  // Together: top-level cached_tokens
  assert.equal(
    parseUsage({ prompt_tokens: 44, completion_tokens: 23, cached_tokens: 4 })?.cached_input_tokens,
    4,
  );
  // xAI: reasoning is outside completion_tokens but inside total_tokens, and billed as output
  assert.equal(
    parseUsage({ prompt_tokens: 12, completion_tokens: 1, total_tokens: 303 })?.output_tokens,
    291,
  );
  assert.equal(parseUsage(null), undefined);
  assert.equal(parseUsage({ cost: 1 }), undefined);
  assert.equal(parseUsage({ prompt_tokens: "12" }), undefined);
});

Deno.test("estimates are ~chars/4 and marked estimated; sums keep the mark", () => {
  const e = estimateUsage(401, 9);
  assert.deepEqual(e, {
    input_tokens: 101,
    output_tokens: 3,
    cached_input_tokens: 0,
    estimated: true,
  });
  const exact = { input_tokens: 10, output_tokens: 5, cached_input_tokens: 2, reasoning_tokens: 1 };
  assert.deepEqual(addUsage(exact, exact), {
    input_tokens: 20,
    output_tokens: 10,
    cached_input_tokens: 4,
    reasoning_tokens: 2,
  });
  assert.equal(addUsage(exact, e).estimated, true);
});

Deno.test("a turn's usage and cost come from the usage chunk, cached tokens included", async () => {
  const body = sse(
    { choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] },
    {
      choices: [],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 200,
        total_tokens: 1200,
        prompt_tokens_details: { cached_tokens: 600 },
      },
    },
    "[DONE]",
  );
  const { fetch } = scriptedFetch([ok(body)]);
  const turn = await createProvider(testModel({ pricing: PRICES }), { fetch }).complete(
    userRequest(),
    () => {},
  );
  assert.deepEqual(turn.usage, {
    input_tokens: 1000,
    output_tokens: 200,
    cached_input_tokens: 600,
  });
  // 400 × 3 + 600 × 0.3 + 200 × 15 = 1200 + 180 + 3000 = 4380 per million
  assert.equal(turn.cost_usd, 0.00438);
});

Deno.test("a recorded DeepSeek turn with cache hits costs what the invoice would say", async () => {
  const { fetch } = scriptedFetch([
    loadFixture("deepseek/deepseek-reasoner-tool-call.chunks.jsonl"),
  ]);
  const turn = await createProvider(testModel({ pricing: PRICES }), { fetch }).complete(
    userRequest(),
    () => {},
  );
  assert.deepEqual(turn.usage, {
    input_tokens: 339,
    output_tokens: 83,
    cached_input_tokens: 320,
    reasoning_tokens: 39,
  });
  // 19 × 3 + 320 × 0.3 + 83 × 15 = 57 + 96 + 1245 = 1398 per million
  assert.ok(Math.abs(turn.cost_usd - 0.001398) < 1e-12, String(turn.cost_usd));
});

Deno.test("no usage sent: an estimate, marked, and priced", async () => {
  const text = "x".repeat(40);
  const { fetch } = scriptedFetch([
    ok(sse({ choices: [{ index: 0, delta: { content: text }, finish_reason: "stop" }] })),
  ]);
  const turn = await createProvider(testModel({ pricing: PRICES }), { fetch }).complete(
    userRequest(),
    () => {},
  );
  assert.equal(turn.usage.estimated, true);
  assert.equal(turn.usage.output_tokens, 10);
  assert.ok(turn.usage.input_tokens > 0);
  assert.equal(turn.cost_usd, costOf(turn.usage, PRICES));
});
