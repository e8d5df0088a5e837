import assert from "node:assert/strict";
import { runAgent } from "../../src/agent/loop.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import type { LoopInput } from "../../src/agent/types.ts";
import { AgentError, BudgetError, GateError, InterruptedError } from "../../src/util/errors.ts";
import {
  callStep,
  echoRunner,
  idSequence,
  memoryWriter,
  scriptedProvider,
  textStep,
} from "../_support/agent_fakes.ts";
import { fakeClock } from "../_support/fake_clock.ts";

function setup(steps: Parameters<typeof scriptedProvider>[0], runner = echoRunner()) {
  const events: AgentEvent[] = [];
  const provider = scriptedProvider(steps);
  const store = memoryWriter();
  const deps = {
    provider,
    tools: runner,
    store,
    clock: fakeClock(),
    emit: (e: AgentEvent) => events.push(e),
    newId: idSequence(),
    repair: (m: import("../../src/domain/message.ts").Message[]) => m,
  };
  const input = (over: Partial<LoopInput> = {}): LoopInput => ({
    system: "sys",
    history: [],
    prompt: "do it",
    limits: {},
    onDeny: "continue",
    signal: new AbortController().signal,
    ...over,
  });
  return { events, provider, store, deps, input, runner };
}

Deno.test("a text answer ends the run with its text and usage", async () => {
  const { deps, input, events, store } = setup([textStep("hello")]);
  const out = await runAgent(deps, input());
  assert.equal(out.error, undefined);
  assert.equal(out.text, "hello");
  assert.equal(out.turns, 1);
  assert.deepEqual(out.usage.input_tokens, 10);
  assert.deepEqual(events.map((e) => e.type), ["request", "text", "turn"]);
  assert.deepEqual(events[0], { type: "request", n: 1, model: "fake/model", message_id: "m2" });
  const saved = [...store.messages.values()];
  assert.deepEqual(saved.map((m) => m.role), ["user", "assistant"]);
  assert.equal(saved[1].parts.at(-1)?.type, "finish");
  assert.ok(saved[1].finished_at);
});

Deno.test("tool calls run, their results are sent back, then the model answers", async () => {
  const { deps, input, events, provider, runner } = setup([
    callStep([{ id: "c1", name: "echo", input: { a: 1 } }, { id: "c2", name: "echo", input: {} }]),
    textStep("done"),
  ]);
  const out = await runAgent(deps, input());
  assert.equal(out.text, "done");
  assert.equal(out.turns, 2);
  assert.equal(runner.calls.length, 2);
  const second = provider.requests[1].messages;
  assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "tool"]);
  const results = second[2].parts.filter((p) => p.type === "tool_result");
  assert.deepEqual(results.map((p) => p.type === "tool_result" && p.tool_call_id), ["c1", "c2"]);
  assert.deepEqual(
    events.map((e) => e.type),
    [
      "request",
      "turn",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "request",
      "text",
      "turn",
    ],
  );
  assert.deepEqual(provider.requests[0].tools.map((t) => t.name), ["echo"]);
});

Deno.test("a call's tool is warmed when the call starts streaming, before it runs", async () => {
  const { deps, input, runner } = setup([
    callStep([{ id: "c1", name: "echo", input: { a: 1 } }, { id: "c2", name: "echo", input: {} }]),
    textStep("done"),
  ]);
  await runAgent(deps, input());
  assert.deepEqual(runner.warmed, [
    { name: "echo", callsBefore: 0 },
    { name: "echo", callsBefore: 0 },
  ]);
  assert.equal(runner.calls.length, 2);
});

Deno.test("history is passed on and the prompt appended", async () => {
  const { deps, input, provider } = setup([textStep("again")]);
  const prior = {
    id: "old",
    role: "user" as const,
    parts: [{ type: "text" as const, text: "earlier" }],
    created_at: 1,
    updated_at: 1,
  };
  await runAgent(deps, input({ history: [prior] }));
  assert.deepEqual(provider.requests[0].messages.map((m) => m.id), ["old", "m1"]);
});

Deno.test("a retry event resets the streamed draft", async () => {
  const { deps, input, events, store } = setup([{
    events: [
      { type: "text", delta: "partial" },
      { type: "retry", attempt: 1, delay_ms: 10, reason: "cut" },
      { type: "text", delta: "whole" },
    ],
    turn: {
      parts: [{ type: "text", text: "whole" }],
      finish_reason: "stop",
      usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 },
      cost_usd: 0,
    },
  }]);
  const out = await runAgent(deps, input());
  assert.equal(out.text, "whole");
  assert.deepEqual(events.map((e) => e.type), ["request", "text", "retry", "text", "turn"]);
  const assistant = [...store.messages.values()][1];
  assert.deepEqual(assistant.parts.filter((p) => p.type === "text"), [{
    type: "text",
    text: "whole",
  }]);
});

/**
 * Every limit ends the run after the turn that reached it: one request (20 in, 10 out,
 * $0.002), its tool call run and its result kept, and no second request. The error
 * says which limit and by how much.
 */
Deno.test("max turns, tokens and cost stop before the next request with a budget error", async () => {
  const cases = [
    { limits: { max_turns: 1 }, kind: "turns", message: "max turns reached (1)" },
    { limits: { max_tokens: 20 }, kind: "tokens", message: "max tokens reached (30 of 20)" },
    {
      limits: { max_cost: 0.001 },
      kind: "cost",
      message: "max cost reached ($0.0020 of $0.001)",
    },
  ];
  for (const { limits, kind, message } of cases) {
    const { deps, input, provider, runner, store } = setup([
      callStep([{ id: "c1", name: "echo", input: {} }]),
      textStep("never"),
    ]);
    const out = await runAgent(deps, input({ limits }));
    const what = JSON.stringify(limits);
    assert.ok(out.error instanceof BudgetError, what);
    assert.equal(out.error.kind, kind, what);
    assert.equal(out.error.message, message, what);
    assert.equal(provider.requests.length, 1, what);
    assert.equal(runner.calls.length, 1, what);
    assert.equal(out.turns, 1, what);
    assert.deepEqual(
      [out.usage.input_tokens, out.usage.output_tokens, out.cost_usd],
      [20, 10, 0.002],
      what,
    );
    assert.equal(out.text, "", what);
    // The turn that used the budget is on record, its tool result too.
    const roles = [...store.messages.values()].map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "tool"], what);
  }
});

Deno.test("denials are collected; --on-deny stop ends at once, fail at the end", async () => {
  const denyAll = () => echoRunner(() => ({ deny: true, content: "Permission denied" }));
  const steps = () => [callStep([{ id: "c1", name: "echo", input: {} }]), textStep("ok")];

  let s = setup(steps(), denyAll());
  let out = await runAgent(s.deps, s.input());
  assert.equal(out.error, undefined);
  assert.equal(out.denials.length, 1);

  s = setup(steps(), denyAll());
  out = await runAgent(s.deps, s.input({ onDeny: "fail" }));
  assert.ok(out.error instanceof GateError);
  assert.equal(out.text, "ok");

  s = setup(steps(), denyAll());
  out = await runAgent(s.deps, s.input({ onDeny: "stop" }));
  assert.ok(out.error instanceof GateError);
  assert.equal(s.provider.requests.length, 1);
  assert.ok(s.store.metas.some((m) => m.denial?.tool === "echo"));
});

Deno.test("a provider failure ends with an agent error and a finished error message", async () => {
  const { deps, input, store } = setup([{ error: new Error("boom") }]);
  const out = await runAgent(deps, input());
  assert.ok(out.error instanceof AgentError);
  const assistant = [...store.messages.values()][1];
  const finish = assistant.parts.at(-1);
  assert.equal(finish?.type === "finish" && finish.reason, "error");
});

Deno.test("an aborted signal ends the run as interrupted", async () => {
  const ac = new AbortController();
  ac.abort(new InterruptedError("SIGTERM"));
  const { deps, input } = setup([textStep("x")]);
  const out = await runAgent(deps, input({ signal: ac.signal }));
  assert.ok(out.error instanceof InterruptedError);
  assert.equal((out.error as InterruptedError).signal, "SIGTERM");
});

Deno.test("the same call with the same output six times in ten steps is a loop", async () => {
  const steps = Array.from(
    { length: 8 },
    () => callStep([{ id: "c", name: "echo", input: { x: 1 } }]),
  );
  const { deps, input, provider } = setup(steps);
  const out = await runAgent(deps, input());
  assert.ok(out.error instanceof AgentError);
  assert.match(out.error.message, /loop detected/);
  assert.equal(provider.requests.length, 6);
});

Deno.test("repeated calls with different outputs are not a loop", async () => {
  let n = 0;
  const runner = echoRunner(() => ({ content: `output ${n++}` }));
  const steps = [
    ...Array.from({ length: 7 }, () => callStep([{ id: "c", name: "echo", input: { x: 1 } }])),
    textStep("fine"),
  ];
  const { deps, input } = setup(steps, runner);
  const out = await runAgent(deps, input());
  assert.equal(out.error, undefined);
  assert.equal(out.text, "fine");
});

Deno.test("a sub-agent's denials count as the run's; --on-deny stop ends after it", async () => {
  const nested = [{
    tool: "write",
    tool_call_id: "x",
    input_summary: "{}",
    rule: "r",
    reason: "no",
  }];
  const runner = {
    ...echoRunner(),
    run: (call: import("../../src/domain/message.ts").ToolCallPart) =>
      Promise.resolve({
        result: {
          type: "tool_result" as const,
          tool_call_id: call.id,
          name: call.name,
          content: "child answer",
          is_error: false,
        },
        nested_denials: nested,
      }),
  };
  let s = setup(
    [callStep([{ id: "a1", name: "agent", input: { prompt: "p" } }]), textStep("ok")],
    runner,
  );
  let out = await runAgent(s.deps, s.input());
  assert.equal(out.error, undefined);
  assert.deepEqual(out.denials, nested);

  s = setup(
    [callStep([{ id: "a1", name: "agent", input: { prompt: "p" } }]), textStep("ok")],
    runner,
  );
  out = await runAgent(s.deps, s.input({ onDeny: "stop" }));
  assert.ok(out.error instanceof GateError);
  assert.equal(s.provider.requests.length, 1);
});

Deno.test("tool_result says how long the call ran, from its start to its end", async () => {
  const clock = fakeClock();
  const runner = echoRunner((call) => {
    clock.advance(call.id === "c1" ? 1500 : 20);
    return {};
  });
  const { deps, input, events } = setup([
    callStep([{ id: "c1", name: "echo", input: {} }, { id: "c2", name: "echo", input: {} }]),
    textStep("done"),
  ], runner);
  await runAgent({ ...deps, clock }, input());
  const durations = events.flatMap((e) => e.type === "tool_result" ? [[e.id, e.duration_ms]] : []);
  assert.deepEqual(durations, [["c1", 1500], ["c2", 20]]);
});
