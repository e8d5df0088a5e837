import assert from "node:assert/strict";
import { transcript, writeSummary } from "../../src/agent/summarize.ts";
import type { Message } from "../../src/domain/message.ts";
import { scriptedProvider, textStep } from "../_support/agent_fakes.ts";

function msg(role: Message["role"], text: string, n: number): Message {
  return { id: `m${n}`, role, parts: [{ type: "text", text }], created_at: n, updated_at: n };
}

const history = [
  msg("user", "THE-TASK: fix the parser", 0),
  ...Array.from({ length: 40 }, (_, i) => msg("assistant", `step ${i} ${"x".repeat(500)}`, i + 1)),
];

Deno.test("the transcript keeps the task and the latest entries when it must shrink", () => {
  const whole = transcript(history);
  assert.ok(whole.length > 20_000);
  const small = transcript(history, 5_000);
  assert.ok(small.length <= 5_000, String(small.length));
  assert.ok(small.startsWith("[user] THE-TASK: fix the parser"));
  assert.match(
    small,
    /\[\.\.\. \d+ earlier entries left out to fit the summarizer's context window \.\.\.\]/,
  );
  assert.match(small, /step 39 x+$/);
  assert.doesNotMatch(small, /step 0 /);
});

Deno.test("a long user text is cut inside the transcript", () => {
  const text = transcript([msg("user", "y".repeat(50_000), 0)]);
  assert.ok(text.length < 16_100);
  assert.match(text, /\[\.\.\. 34000 characters cut\]$/);
});

Deno.test("the summary request fits the small model's window, not the large one's", async () => {
  const small = scriptedProvider([textStep("SUMMARY")]);
  const out = await writeSummary(
    { provider: small, contextWindow: 1_000_000, summaryWindow: 2_000 },
    history,
    new AbortController().signal,
    0,
  );
  assert.equal(out.text, "SUMMARY");
  const sent = JSON.stringify(small.requests[0].messages);
  // 60% of 2,000 tokens at 4 characters a token.
  assert.ok(sent.length < 2_000 * 0.6 * 4 + 500, String(sent.length));
  assert.match(sent, /THE-TASK/);
});
