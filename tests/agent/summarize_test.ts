import assert from "node:assert/strict";
import { runAgent } from "../../src/agent/loop.ts";
import { needsSummary, SUMMARY_PREFIX, transcript } from "../../src/agent/summarize.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import { AgentError } from "../../src/util/errors.ts";
import {
  callStep,
  echoRunner,
  idSequence,
  memoryWriter,
  scriptedProvider,
  textStep,
} from "../_support/agent_fakes.ts";
import { fakeClock } from "../_support/fake_clock.ts";

function big(step: ReturnType<typeof callStep>, input: number) {
  if ("turn" in step) {
    step.turn.usage = { input_tokens: input, output_tokens: 10, cached_input_tokens: 0 };
  }
  return step;
}

function run(
  large: ReturnType<typeof scriptedProvider>,
  small: ReturnType<typeof scriptedProvider>,
) {
  const events: AgentEvent[] = [];
  const store = memoryWriter();
  const promise = runAgent({
    provider: large,
    tools: echoRunner(),
    store,
    clock: fakeClock(),
    emit: (e) => events.push(e),
    newId: idSequence(),
    repair: (m) => m,
    summarizer: { provider: small, contextWindow: 1000 },
  }, {
    system: "sys",
    history: [],
    prompt: "long task",
    limits: {},
    onDeny: "continue",
    signal: new AbortController().signal,
  });
  return { promise, events, store };
}

Deno.test("thresholds: 20k tokens left for big windows, 20% for small ones", () => {
  assert.equal(needsSummary(279_000, 300_000), false);
  assert.equal(needsSummary(281_000, 300_000), true);
  assert.equal(needsSummary(150_000, 200_000), false);
  assert.equal(needsSummary(170_000, 200_000), true);
  assert.equal(needsSummary(975_000, 1_000_000), false);
  assert.equal(needsSummary(980_000, 1_000_000), true);
});

Deno.test("crossing the threshold summarizes with the small model and continues from it", async () => {
  const large = scriptedProvider([
    big(callStep([{ id: "c1", name: "echo", input: { n: 1 } }]), 500),
    big(callStep([{ id: "c2", name: "echo", input: { n: 2 } }]), 850),
    textStep("finished"),
  ]);
  const small = scriptedProvider([textStep("Task: long task. Done so far: echo twice.")]);
  const { promise, events, store } = run(large, small);
  const out = await promise;
  assert.equal(out.error, undefined);
  assert.equal(out.text, "finished");
  assert.equal(small.requests.length, 1);
  const asked = JSON.stringify(small.requests[0].messages);
  assert.match(asked, /long task/);
  assert.match(asked, /tool call echo/);
  // The request after the summary carries the summary and nothing older.
  const after = large.requests[2].messages;
  assert.equal(after.length, 1);
  const first = after[0].parts[0];
  assert.ok(first.type === "text" && first.text.startsWith(SUMMARY_PREFIX));
  assert.ok(events.some((e) => e.type === "summarized"));
  const summaryId = store.metas.find((m) => m.summary_message_id)?.summary_message_id;
  assert.equal(summaryId, after[0].id);
  // The full history stays in the store.
  assert.ok(store.messages.size >= 6);
});

Deno.test("a context-length error summarizes and retries once", async () => {
  const overflow = Object.assign(new Error("maximum context length exceeded"), {
    kind: "context_length",
  });
  const large = scriptedProvider([
    callStep([{ id: "c1", name: "echo", input: {} }]),
    { error: overflow },
    textStep("after summary"),
  ]);
  const small = scriptedProvider([textStep("summary text")]);
  const { promise } = run(large, small);
  const out = await promise;
  assert.equal(out.error, undefined);
  assert.equal(out.text, "after summary");
  assert.equal(small.requests.length, 1);
});

Deno.test("a failing summary ends the run with an agent error", async () => {
  const large = scriptedProvider([
    big(callStep([{ id: "c1", name: "echo", input: {} }]), 900),
    textStep("never"),
  ]);
  const small = scriptedProvider([{ error: new Error("small model down") }]);
  const { promise } = run(large, small);
  const out = await promise;
  assert.ok(out.error instanceof AgentError);
  assert.match(out.error.message, /summarizing/);
});

Deno.test("the transcript cuts long tool results", () => {
  const text = transcript([{
    id: "1",
    role: "tool",
    parts: [{
      type: "tool_result",
      tool_call_id: "a",
      name: "bash",
      content: "x".repeat(5000),
      is_error: false,
    }],
    created_at: 0,
    updated_at: 0,
  }]);
  assert.ok(text.length < 2200);
  assert.match(text, /characters cut/);
});
