/**
 * Test helper process: one agent-like run on a shared data dir. Creates a session,
 * streams an assistant message in debounced snapshots, answers a tool call, closes.
 * Prints "session <id>". Totals depend on K so the parent can check them.
 * Usage: deno run --allow-read=DIR --allow-write=DIR _writer_proc.ts DIR K
 */
import { openSessionStore } from "../../src/session/mod.ts";
import type { Message } from "../../src/domain/message.ts";

const [dataDir, kArg] = Deno.args;
const k = Number(kArg);
const store = await openSessionStore(dataDir, {
  debounceMs: 5,
  warn: (m) => console.error(`warn: ${m}`),
});
const h = await store.create({ cwd: "/w", title: `run ${k}` });
const now = () => Date.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const base = { created_at: now(), updated_at: now() };
await h.saveMessage({
  id: "u",
  role: "user",
  parts: [{ type: "text", text: `task ${k}` }],
  ...base,
}, {
  flush: true,
});
const draft: Message = {
  id: "a1",
  role: "assistant",
  parts: [{ type: "text", text: "" }],
  ...base,
};
for (let i = 0; i < 30; i++) {
  (draft.parts[0] as { text: string }).text += `word${i} `;
  draft.updated_at = now();
  void h.saveMessage(draft);
  await sleep(2);
}
draft.parts.push({ type: "tool_call", id: "c1", name: "bash", input: "{}" });
draft.parts.push({ type: "finish", reason: "tool_calls", at: now() });
draft.finished_at = (draft.parts.at(-1) as { at: number }).at;
draft.usage = { input_tokens: 100 * (k + 1), output_tokens: k + 1, cached_input_tokens: k };
draft.cost_usd = 0.001 * (k + 1);
await h.saveMessage(draft, { flush: true });
await h.saveMeta({ usage: draft.usage, cost_usd: draft.cost_usd });
await h.saveMessage({
  id: "t1",
  role: "tool",
  parts: [{
    type: "tool_result",
    tool_call_id: "c1",
    name: "bash",
    content: "ok",
    is_error: false,
  }],
  ...base,
}, { flush: true });
await h.recordChange({ path: `/w/f${k}`, before: null, after: "x" }, "a1");
const end = now();
await h.saveMessage({
  id: "a2",
  role: "assistant",
  parts: [{ type: "text", text: "done" }, { type: "finish", reason: "stop", at: end }],
  created_at: end,
  updated_at: end,
  finished_at: end,
  usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 },
  cost_usd: 0.0001,
}, { flush: true });
await h.close();
store.close();
console.log(`session ${h.id}`);
