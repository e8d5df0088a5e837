import assert from "node:assert/strict";
import { createRenderer, type RenderOptions } from "../../src/cli/render.ts";
import type { ResultEvent, RunEvent } from "../../src/app/run_events.ts";
import { emptyUsage } from "../../src/domain/usage.ts";

/** stdout, and stderr split into the streamed text and mopac's own lines. */
function render(events: RunEvent[], opts: Partial<RenderOptions> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const r = createRenderer("text", { out: (t) => out.push(t), err: (t) => err.push(t) }, {
    quiet: false,
    verbose: false,
    ...opts,
  });
  for (const e of events) r.event(e);
  const stderr = err.join("");
  return {
    out: out.join(""),
    shown: err.filter((t) => !t.startsWith("mopac: ") && !t.startsWith("→")).join(""),
    err: stderr,
  };
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

Deno.test("deltas are shown on stderr as they come; stdout waits for the final answer", () => {
  const r = render(["Hel", "lo, ", "world"].map((d) => text(d)).concat(turn));
  assert.equal(r.shown, "Hello, world");
  assert.equal(r.out, "");
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
  // The line breaks at the retry (the provider's log line about it goes there).
  assert.equal(r.shown, "Hello, wor\nld!");
  assert.doesNotMatch(r.err, DIFFERS);
});

Deno.test("a retry that diverges is flagged and printed whole on a new line", () => {
  const r = render([text("Hello there"), retry, text("Hello"), text(" again"), text("!"), turn]);
  assert.equal(r.shown, "Hello there\nHello again!");
  assert.match(r.err, DIFFERS);
});

Deno.test("a retry that stops short of the printed text is flagged at the end of the turn", () => {
  const r = render([text("Short answer, and more"), retry, text("Short answer"), turn]);
  assert.equal(r.shown, "Short answer, and more\nShort answer");
  assert.match(r.err, DIFFERS);
});

Deno.test("a second message starts on its own line", () => {
  const r = render([text("first", "m1"), text("second", "m2")]);
  assert.equal(r.shown, "first\nsecond");
});

const result = (over: Partial<ResultEvent>): RunEvent => ({
  type: "result",
  subtype: "success",
  is_error: false,
  exit_code: 0,
  result: "the answer",
  session_id: "s",
  num_turns: 2,
  usage: emptyUsage(),
  cost_usd: 0,
  duration_ms: 1,
  denials: [],
  ...over,
});

Deno.test("stdout holds exactly the final answer: the validated JSON, nothing on failure", () => {
  const steps = [text("Let me look.", "m1"), text("the answer", "m2")];
  assert.equal(render([...steps, result({})]).out, "the answer\n");
  const json = render([text('```json\n{"a": 1}\n```'), result({ structured_output: { a: 1 } })]);
  assert.equal(json.out, '{"a":1}\n');
  const failed = render([...steps, result({ is_error: true, exit_code: 4, error: "max turns" })]);
  assert.equal(failed.out, "");
  assert.match(failed.err, /mopac: max turns/);
  // -q shows no progress, and the answer still reaches stdout.
  const quiet = render([...steps, result({})], { quiet: true });
  assert.deepEqual([quiet.out, quiet.err], ["the answer\n", ""]);
  // stdout and stderr on one terminal: the streamed answer is not printed twice.
  const tty = render([...steps, result({})], { sameTerminal: true });
  assert.deepEqual([tty.out, tty.shown], ["", "Let me look.\nthe answer\n"]);
});
