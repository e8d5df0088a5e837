/**
 * Test helper process: writes a session the way the agent loop does and never stops
 * streaming, so the parent can SIGKILL it mid-stream. Prints "session <id>" first and
 * "flushed <n>" after each flushed snapshot (n = words in the streamed text).
 * Usage: deno run --allow-read=DIR --allow-write=DIR _crash_writer.ts DIR
 */
import { openSessionStore } from "../../src/session/mod.ts";
import type { Message } from "../../src/domain/message.ts";

const [dataDir] = Deno.args;
const store = await openSessionStore(dataDir, { debounceMs: 5 });
const h = await store.create({ cwd: "/w" });
const say = (s: string) => Deno.stdout.write(new TextEncoder().encode(s + "\n"));
await say(`session ${h.id}`);
const t = Date.now();
await h.saveMessage({
  id: "u",
  role: "user",
  parts: [{ type: "text", text: "go" }],
  created_at: t,
  updated_at: t,
}, { flush: true });
// A tool call whose result never arrives (killed while the tool "runs").
const at = Date.now();
await h.saveMessage({
  id: "a1",
  role: "assistant",
  parts: [
    { type: "tool_call", id: "c1", name: "bash", input: '{"command":"sleep 100"}' },
    { type: "tool_call", id: "c2", name: "view", input: '{"file_path":"x"}' },
    { type: "finish", reason: "tool_calls", at },
  ],
  created_at: at,
  updated_at: at,
  finished_at: at,
}, { flush: true });
await h.saveMessage({
  id: "t1",
  role: "tool",
  parts: [{ type: "tool_result", tool_call_id: "c2", name: "view", content: "x", is_error: false }],
  created_at: at,
  updated_at: at,
}, { flush: true });
// Then a second assistant message streams forever, half of it in a tool call's arguments.
const draft: Message = {
  id: "a2",
  role: "assistant",
  parts: [{ type: "text", text: "" }],
  created_at: at,
  updated_at: at,
};
for (let n = 1;; n++) {
  (draft.parts[0] as { text: string }).text += `w${n} `;
  draft.updated_at = Date.now();
  const flush = n % 10 === 0;
  await h.saveMessage(draft, { flush });
  if (flush) await say(`flushed ${n}`);
  if (n === 30) draft.parts.push({ type: "tool_call", id: "c3", name: "bash", input: '{"comm' });
  await new Promise((r) => setTimeout(r, 1));
}
