/**
 * The assembler on hand-made chunk sequences for quirks the recordings show only
 * once or not at all, and the events it emits on the way.
 */
import assert from "node:assert/strict";
import { StreamAssembler } from "../../src/provider/stream_assembler.ts";
import type { StreamEvent } from "../../src/provider/types.ts";

function run(chunks: unknown[]) {
  const events: StreamEvent[] = [];
  let n = 0;
  const asm = new StreamAssembler((e) => events.push(e), () => `call_gen${++n}`);
  for (const c of chunks) asm.push(c);
  return { ...asm.result(), events };
}

const delta = (d: unknown, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const tc = (x: Record<string, unknown>) => delta({ tool_calls: [x] });

Deno.test("events arrive in order with our own call indexes", () => {
  const r = run([
    delta({ reasoning_content: "think" }),
    delta({ content: "Hi" }),
    tc({ index: 3, id: "a", function: { name: "ls", arguments: '{"p":' } }),
    tc({ index: 3, function: { arguments: "1}" } }),
  ]);
  assert.deepEqual(r.events, [
    { type: "reasoning", delta: "think" },
    { type: "text", delta: "Hi" },
    { type: "tool_call_start", index: 0, id: "a", name: "ls" },
    { type: "tool_call_delta", index: 0, delta: '{"p":' },
    { type: "tool_call_delta", index: 0, delta: "1}" },
  ]);
  assert.deepEqual(r.parts, [
    { type: "reasoning", text: "think" },
    { type: "text", text: "Hi" },
    { type: "tool_call", id: "a", name: "ls", input: '{"p":1}' },
  ]);
  assert.equal(r.finishReason, undefined, "no finish_reason was sent");
});

Deno.test("a new id at an index already used is a second call", () => {
  const r = run([
    tc({ index: 0, id: "a", function: { name: "x", arguments: "{}" } }),
    tc({ index: 0, id: "b", function: { name: "y", arguments: "{}" } }),
  ]);
  assert.deepEqual(r.parts.map((p) => p.type === "tool_call" && [p.id, p.name]), [["a", "x"], [
    "b",
    "y",
  ]]);
});

Deno.test("header sent twice and a whole call resent verbatim are not doubled", () => {
  const r = run([
    tc({ index: 0, id: "a", function: { name: "weather", arguments: "" } }),
    tc({ index: 0, id: "a", function: { name: "weather", arguments: "" } }),
    tc({ index: 0, function: { arguments: '{"l":"x"}' } }),
    tc({ index: 0, id: "a", function: { name: "weather", arguments: '{"l":"x"}' } }),
  ]);
  assert.deepEqual(r.parts, [{ type: "tool_call", id: "a", name: "weather", input: '{"l":"x"}' }]);
});

Deno.test("empty ids get a generated id; arguments before the name are kept", () => {
  const r = run([
    tc({ index: 0, id: "", function: { arguments: '{"a":' } }),
    tc({ index: 0, id: "", function: { name: "f", arguments: "1}" } }),
  ]);
  assert.deepEqual(r.parts, [{ type: "tool_call", id: "call_gen1", name: "f", input: '{"a":1}' }]);
  assert.deepEqual(r.events, [
    { type: "tool_call_start", index: 0, id: "call_gen1", name: "f" },
    { type: "tool_call_delta", index: 0, delta: '{"a":' },
    { type: "tool_call_delta", index: 0, delta: "1}" },
  ]);
});

Deno.test("arguments sent as an object (not a string) become JSON text", () => {
  const r = run([tc({ id: "z", function: { name: "g", arguments: { b: 2 } } })]);
  assert.deepEqual(r.parts, [{ type: "tool_call", id: "z", name: "g", input: '{"b":2}' }]);
});

Deno.test("index-less calls with distinct ids are separate calls", () => {
  const r = run([
    tc({ id: "a", function: { name: "x", arguments: "{}" } }),
    tc({ id: "b", function: { name: "y", arguments: "{}" } }),
  ]);
  assert.deepEqual(r.parts.map((p) => (p as { id: string }).id), ["a", "b"]);
  assert.equal(r.finishReason, undefined);
});

Deno.test("finish_reason: repeated, back to null, and normalised", () => {
  assert.equal(run([delta({ content: "a" }, "stop"), delta({}, null)]).finishReason, "stop");
  assert.equal(
    run([delta({ content: "a" }, "length"), delta({}, "length")]).finishReason,
    "length",
  );
  assert.equal(run([delta({ content: "a" }, "end_turn")]).finishReason, "stop");
  assert.equal(run([delta({ content: "a" }, "max_tokens")]).finishReason, "length");
  assert.equal(run([delta({ content: "a" }, "content_filter")]).finishReason, "content_filter");
  // Some servers say "stop" after a tool call.
  const r = run([
    tc({ index: 0, id: "a", function: { name: "x", arguments: "{}" } }),
    delta({}, "stop"),
  ]);
  assert.equal(r.finishReason, "tool_calls");
});

Deno.test("usage: last wins, a zero trailer does not erase it, x_groq as fallback", () => {
  const u = (p: number, c: number) => ({
    prompt_tokens: p,
    completion_tokens: c,
    total_tokens: p + c,
  });
  assert.equal(
    run([{ choices: [], usage: u(5, 1) }, { choices: [], usage: u(5, 9) }]).usage?.output_tokens,
    9,
  );
  assert.equal(
    run([{ choices: [], usage: u(5, 9) }, { choices: [], usage: u(0, 0) }]).usage?.output_tokens,
    9,
  );
  assert.deepEqual(run([{ choices: [], x_groq: { usage: u(7, 3) } }]).usage, {
    input_tokens: 7,
    output_tokens: 3,
    cached_input_tokens: 0,
  });
  assert.equal(run([delta({ content: "a" })]).usage, undefined);
});

Deno.test("other choices, junk chunks and legacy function_call", () => {
  const r = run([
    null,
    "junk",
    { choices: "nope" },
    { choices: [{ index: 1, delta: { content: "other choice" } }] },
    delta({ content: "mine", refusal: null, tool_calls: null }),
    delta({ function_call: { name: "legacy", arguments: "{}" } }, "function_call"),
  ]);
  assert.deepEqual(r.parts, [
    { type: "text", text: "mine" },
    { type: "tool_call", id: "call_gen1", name: "legacy", input: "{}" },
  ]);
  assert.equal(r.finishReason, "tool_calls");
});

Deno.test("reasoning_details pieces merge into one block per index; text not doubled", () => {
  const d = (x: Record<string, unknown>) => ({
    type: "reasoning.text",
    index: 0,
    format: "f",
    ...x,
  });
  const r = run([
    delta({ reasoning: "A", reasoning_details: [d({ text: "A" })] }),
    delta({ reasoning: "B", reasoning_details: [d({ text: "B" })] }),
    delta({ reasoning_details: [d({ signature: "sig" })] }),
    delta({ reasoning_details: [{ type: "reasoning.encrypted", data: "xyz" }] }),
    delta({ content: "done" }),
  ]);
  assert.deepEqual(r.parts, [
    {
      type: "reasoning",
      text: "AB",
      details: [
        { type: "reasoning.text", index: 0, format: "f", text: "AB", signature: "sig" },
        { type: "reasoning.encrypted", data: "xyz" },
      ],
    },
    { type: "text", text: "done" },
  ]);
});

Deno.test("an empty tool input becomes {}", () => {
  const r = run([tc({ index: 0, id: "a", function: { name: "now" } })]);
  assert.equal((r.parts[0] as { input: string }).input, "{}");
});
