/**
 * Every recorded provider response replayed through the provider layer: streams
 * give back the recorded text, reasoning and tool calls; error responses give a
 * ProviderError of the right kind, never a crash.
 */
import assert from "node:assert/strict";
import { loadFixture, type RecordedResponse } from "../_support/provider_fixtures.ts";
import type { ProviderTurn } from "../../src/provider/types.ts";
import { factsOf, GLUED, replay, splitGlued, streamFixtures } from "./fixture_replay.ts";

const textOf = (t: ProviderTurn) => t.parts.map((p) => p.type === "text" ? p.text : "").join("");
const calls = (t: ProviderTurn) => t.parts.flatMap((p) => p.type === "tool_call" ? [p] : []);
const reasoningOf = (t: ProviderTurn) =>
  t.parts.map((p) => p.type === "reasoning" ? p.text : "").join("");

Deno.test("every stream fixture gives its recorded text, reasoning and tool calls", async () => {
  const fixtures = streamFixtures();
  assert.ok(fixtures.length >= 80, `only ${fixtures.length} stream fixtures found`);
  for (const f of fixtures) {
    const facts = factsOf(f);
    const turn = await replay(f).catch((e) => assert.fail(`${f.name}: ${e}`));
    assert.equal(textOf(turn), facts.text, `${f.name}: text`);
    assert.deepEqual(calls(turn).map((c) => c.name), facts.toolNames, `${f.name}: tool names`);
    assert.equal(reasoningOf(turn) !== "", facts.hasReasoning, `${f.name}: reasoning present`);
    for (const c of calls(turn)) {
      assert.ok(c.id !== "", `${f.name}: empty tool call id`);
      JSON.parse(c.input); // every assembled argument string is complete JSON
    }
    assert.ok(turn.usage.input_tokens > 0 && turn.usage.output_tokens > 0, `${f.name}: usage`);
    assert.ok(turn.cost_usd > 0, `${f.name}: cost`);
    const expectFinish = calls(turn).length > 0 ? ["tool_calls", "length"] : ["stop", "length"];
    assert.ok(expectFinish.includes(turn.finish_reason), `${f.name}: ${turn.finish_reason}`);
  }
});

function one(name: string): RecordedResponse {
  return loadFixture(name);
}

Deno.test("recorded content comes out exactly (sample)", async (t) => {
  await t.step("openai text with usage-only final chunk", async () => {
    const turn = await replay(one("openai/gpt-4o-text.sse"));
    assert.deepEqual(turn.parts, [{ type: "text", text: "Olá!" }]);
    assert.equal(turn.finish_reason, "stop");
    assert.deepEqual(turn.usage, { input_tokens: 20, output_tokens: 2, cached_input_tokens: 0 });
  });
  await t.step("openai parallel calls with fragmented arguments", async () => {
    const turn = await replay(one("openai/gpt-4o-parallel-tool-calls.sse"));
    assert.deepEqual(calls(turn), [
      {
        type: "tool_call",
        id: "call_ehIWdjL1abZk1h8FWGLQ0Hie",
        name: "add",
        input: '{"a": 2, "b": 3}',
      },
      {
        type: "tool_call",
        id: "call_fBSgA47J5VeONggizTIvl7AH",
        name: "multiply",
        input: '{"a": 2, "b": 3}',
      },
    ]);
    assert.equal(turn.finish_reason, "tool_calls");
  });
  await t.step("first tool index 1, text before the call", async () => {
    const turn = await replay(
      one("anthropic-fallback-gateway/claude-haiku-4.5-tool-call-index-1.sse"),
    );
    assert.deepEqual(turn.parts, [
      { type: "text", text: "Reading it." },
      { type: "tool_call", id: "toolu_sanitized", name: "read_file", input: '{"path": "a.txt"}' },
    ]);
    assert.equal(turn.usage.estimated, true, "no usage sent: estimated");
  });
  await t.step("continuation deltas with empty id keep the real id", async () => {
    const turn = await replay(one("alibaba-qwen/qwen3-max-tool-call.chunks.jsonl"));
    assert.deepEqual(calls(turn), [{
      type: "tool_call",
      id: "call_eee11723464a4b9eb8cee71d",
      name: "weather",
      input: '{"location": "San Francisco"}',
    }]);
  });
  await t.step("no index, no type (mistral)", async () => {
    const turn = await replay(one("mistral/mistral-small-tool-call.chunks.jsonl"));
    assert.deepEqual(calls(turn).map((c) => [c.id, c.name, c.input]), [
      ["gSIMJiOkT", "weather", '{"location": "San Francisco"}'],
    ]);
  });
  await t.step("continuation with name:'' and no id", async () => {
    const turn = await replay(one("mistral/incremental-tool-call-args.chunks.jsonl"));
    assert.deepEqual(calls(turn).map((c) => [c.id, c.name, c.input]), [
      ["chatcmpl-tool-9f149c74c42f265b", "webSearchTool", '{"query": "current Berlin weather"}'],
    ]);
  });
  await t.step("content arrays with thinking parts (magistral)", async () => {
    const turn = await replay(one("mistral/magistral-thinking-content-array.chunks.jsonl"));
    assert.deepEqual(turn.parts, [
      { type: "reasoning", text: "The user is asking for 2+2. This is basic arithmetic. 2+2=4." },
      { type: "text", text: "2 + 2 = 4" },
    ]);
    const hybrid = await replay(one("mistral/mistral-small-hybrid-thinking.sse"));
    assert.equal(textOf(hybrid), "144");
    assert.match(
      reasoningOf(hybrid),
      /^The user is asking for the product of 12.*So, the answer is 144\.$/s,
    );
  });
  await t.step("reasoning + reasoning_details with signature (openrouter)", async () => {
    const turn = await replay(one("openrouter/anthropic-thinking.sse"));
    const r = turn.parts[0];
    assert.equal(r.type, "reasoning");
    if (r.type !== "reasoning") return;
    assert.match(r.text, /^The user is asking for weather information in Florence, Italy\./);
    assert.equal(r.details?.length, 1);
    const d = r.details?.[0] as Record<string, string>;
    assert.equal(d.text, r.text, "detail text is the joined reasoning, not doubled");
    assert.match(d.signature, /^Eq0ECkgI/);
    assert.equal(calls(turn)[0].input, '{"location": "Florence, Italy"}');
  });
  await t.step("encrypted reasoning only (gemini via openrouter)", async () => {
    const turn = await replay(one("openrouter/gemini-tool-call.sse"));
    assert.deepEqual(turn.parts[0].type, "reasoning");
    const r = turn.parts[0] as { text: string; details: Array<Record<string, string>> };
    assert.equal(r.text, "");
    assert.equal(r.details[0].type, "reasoning.encrypted");
    assert.equal(calls(turn)[0].id, "tool_weather_nNBvDVuJXrZZDwEjuOoj");
  });
  await t.step("no [DONE] but a finish_reason (perplexity), cumulative usage", async () => {
    const turn = await replay(one("perplexity/sonar-text-no-done.sse"));
    assert.equal(textOf(turn), "1 2 3");
    assert.equal(turn.finish_reason, "stop");
    assert.equal(turn.usage.output_tokens, 5);
  });
  await t.step("no finish_reason anywhere but [DONE] (snowflake)", async () => {
    const turn = await replay(one("snowflake-cortex/claude-text-empty-id.sse"));
    assert.equal(textOf(turn), "4");
    assert.equal(turn.finish_reason, "stop");
  });
  await t.step("non-streamed JSON answer with an empty tool call id (gemini)", async () => {
    const turn = await replay(one("gemini/openai-compat-nonstream-tool-call-empty-id.json"));
    const [c] = calls(turn);
    assert.match(c.id, /^call_[0-9a-f]{24}$/);
    assert.equal(c.name, "get_current_time");
    assert.equal(c.input, "{}");
    assert.equal(turn.usage.output_tokens, 109 - 35, "hidden thinking counted as output");
  });
  await t.step(
    "finish length, usage on the finish chunk with cache fields (deepseek)",
    async () => {
      const turn = await replay(one("deepseek/deepseek-chat-text.chunks.jsonl"));
      assert.equal(turn.finish_reason, "length");
      assert.deepEqual(turn.usage, {
        input_tokens: 13,
        output_tokens: 400,
        cached_input_tokens: 0,
      });
    },
  );
  await t.step("hidden reasoning tokens billed as output (xai)", async () => {
    const turn = await replay(one("xai/grok-3-mini-text-reasoning.chunks.jsonl"));
    assert.deepEqual(turn.usage, {
      input_tokens: 12,
      output_tokens: 291,
      cached_input_tokens: 11,
      reasoning_tokens: 290,
    });
  });
  await t.step("extra chunk after the usage chunk (openai moderation)", async () => {
    const turn = await replay(one("openai/gpt-5-moderation-extra-chunk.sse"));
    assert.equal(textOf(turn), "Paris.");
  });
  await t.step("glued cerebras responses, one call each", async () => {
    const [first, second] = splitGlued(one(GLUED));
    assert.deepEqual(calls(await replay(first)).map((c) => c.id), ["bbd2b9d98"]);
    const turn2 = await replay(second);
    assert.equal(textOf(turn2), '{"result": "2026"}');
    assert.deepEqual(calls(turn2).map((c) => c.id), ["e0ecf32e0"]);
  });
});
