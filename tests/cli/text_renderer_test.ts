import assert from "node:assert/strict";
import { createRenderer } from "../../src/cli/render.ts";
import type { RunEvent } from "../../src/app/run_events.ts";
import { emptyUsage } from "../../src/domain/usage.ts";

function render(events: RunEvent[]) {
  const out: string[] = [];
  const err: string[] = [];
  const r = createRenderer("text", { out: (t) => out.push(t), err: (t) => err.push(t) }, {
    quiet: false,
    verbose: false,
  });
  for (const e of events) r.event(e);
  return { out: out.join(""), err: err.join("") };
}

const text = (delta: string, id = "m1"): RunEvent => ({ type: "text", delta, message_id: id });
const retry: RunEvent = {
  type: "retry",
  attempt: 2,
  delay_ms: 1,
  reason: "cut",
  message_id: "m1",
};
const turn: RunEvent = { type: "turn", n: 1, usage: emptyUsage(), cost_usd: 0 };
const DIFFERS = /retried response differs/;

Deno.test("deltas are printed as they come", () => {
  const r = render(["Hel", "lo, ", "world"].map((d) => text(d)).concat(turn));
  assert.equal(r.out, "Hello, world");
  assert.equal(r.err, "");
});

Deno.test("a retry that repeats the printed text prints only what goes beyond it", () => {
  const r = render([
    text("Hello, "),
    text("wor"),
    retry,
    text("Hel"),
    text("lo, w"),
    text("orld!"),
    turn,
  ]);
  assert.equal(r.out, "Hello, world!");
  assert.doesNotMatch(r.err, DIFFERS);
});

Deno.test("a retry that diverges is flagged and printed whole on a new line", () => {
  const r = render([text("Hello there"), retry, text("Hello"), text(" again"), text("!"), turn]);
  assert.equal(r.out, "Hello there\nHello again!");
  assert.match(r.err, DIFFERS);
});

Deno.test("a retry that stops short of the printed text is flagged at the end of the turn", () => {
  const r = render([text("Short answer, and more"), retry, text("Short answer"), turn]);
  assert.equal(r.out, "Short answer, and more\nShort answer");
  assert.match(r.err, DIFFERS);
});

Deno.test("a second message starts on its own line", () => {
  const r = render([text("first", "m1"), text("second", "m2")]);
  assert.equal(r.out, "first\nsecond");
});
