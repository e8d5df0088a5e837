/**
 * The crash-recovery snapshots of a streaming answer, through the loop and a real
 * session store on disk: taken on the store's debounce from the draft as it is then,
 * never once per delta, for text, reasoning and tool-call arguments alike.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runAgent } from "../../src/agent/loop.ts";
import { openSessionStore, type SessionHandle } from "../../src/session/mod.ts";
import type { Provider, ProviderTurn, StreamEvent } from "../../src/provider/types.ts";
import type { Message } from "../../src/domain/message.ts";
import type { SessionWriter } from "../../src/session/types.ts";
import { systemClock } from "../../src/util/clock.ts";
import { echoRunner, idSequence, textStep } from "../_support/agent_fakes.ts";

const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 };

/** A handle that counts how often the loop's draft is read and messages are saved. */
function counting(handle: SessionHandle) {
  const counts = { reads: 0, saves: 0 };
  const writer: SessionWriter = {
    id: handle.id,
    saveMessage: (m, opts) => (counts.saves++, handle.saveMessage(m, opts)),
    liveMessage: (id, read) => handle.liveMessage(id, () => (counts.reads++, read())),
    saveMeta: (meta) => handle.saveMeta(meta),
    recordChange: (change, id) => handle.recordChange(change, id),
    flush: () => handle.flush(),
  };
  return { writer, counts };
}

function loopInput(prompt: string) {
  return {
    system: "sys",
    history: [],
    prompt,
    limits: {},
    onDeny: "continue" as const,
    signal: new AbortController().signal,
  };
}

/** The assistant message as the session file holds it now (the last record of its id). */
async function storedAssistant(path: string): Promise<Message | undefined> {
  const text = await Deno.readTextFile(path).catch(() => "");
  let found: Message | undefined;
  for (const line of text.split("\n")) {
    if (!line.endsWith("}")) continue;
    const r = JSON.parse(line);
    if (r.type === "message" && r.message.role === "assistant") found = r.message;
  }
  return found;
}

async function waitFor<T>(what: string, get: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const v = await get();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("50,000 deltas in one burst: the draft is never read per delta, the answer is whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mopac-snap-" });
  const store = await openSessionStore(dir, { debounceMs: 5 });
  try {
    const handle = await store.create({ cwd: dir });
    const { writer, counts } = counting(handle);
    const text = "abcd".repeat(50_000);
    const provider: Provider = {
      label: "fake/model",
      complete(_req, onEvent) {
        for (let i = 0; i < 50_000; i++) onEvent({ type: "text", delta: "abcd" });
        return Promise.resolve({
          parts: [{ type: "text", text }],
          finish_reason: "stop",
          usage,
          cost_usd: 0,
        });
      },
    };
    const out = await runAgent({
      provider,
      tools: echoRunner(),
      store: writer,
      clock: systemClock,
      emit: () => {},
      newId: idSequence(),
      repair: (m) => m,
    }, loopInput("burst"));
    assert.equal(out.error, undefined);
    assert.equal(out.text, text);
    // No timer can fire inside one synchronous burst: at most one snapshot in all.
    assert.ok(counts.reads <= 1, `the draft was read ${counts.reads} times`);
    assert.equal(counts.saves, 2, "the prompt and the finished answer; no save per delta");
    await handle.close();
    const stored = await storedAssistant(join(dir, "sessions", `${handle.id}.jsonl`));
    assert.equal(stored?.parts[0].type === "text" && stored.parts[0].text, text);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a snapshot holds the draft as it was when the debounce fired, for every kind of delta", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mopac-snap-" });
  const store = await openSessionStore(dir, { debounceMs: 5 });
  try {
    const handle = await store.create({ cwd: dir });
    const path = join(dir, "sessions", `${handle.id}.jsonl`);
    const { writer, counts } = counting(handle);
    const final: ProviderTurn = {
      parts: [
        { type: "reasoning", text: "think think " },
        { type: "text", text: "answer part one, part two" },
        { type: "tool_call", id: "c1", name: "echo", input: '{"x":"0123456789"}' },
      ],
      finish_reason: "tool_calls",
      usage,
      cost_usd: 0,
    };
    /**
     * Streams `events` at once, then waits (sending nothing) until the file holds a
     * snapshot with exactly `parts`: only the debounce can have written it, and only
     * from the draft as it was after these events.
     */
    const step = async (
      onEvent: (e: StreamEvent) => void,
      events: StreamEvent[],
      parts: unknown,
    ) => {
      events.forEach(onEvent);
      await waitFor("a snapshot of the draft so far", async () => {
        const m = await storedAssistant(path);
        if (!m) return undefined;
        assert.equal(m.finished_at, undefined, "a snapshot is unfinished");
        return JSON.stringify(m.parts) === JSON.stringify(parts) ? m : undefined;
      });
    };
    let calls = 0;
    const provider: Provider = {
      label: "fake/model",
      async complete(_req, onEvent) {
        if (calls++ > 0) return (textStep("ok") as { turn: ProviderTurn }).turn;
        await step(onEvent, [
          { type: "reasoning", delta: "think " },
          { type: "reasoning", delta: "think " },
          { type: "text", delta: "answer part one" },
        ], final.parts.slice(0, 1).concat({ type: "text", text: "answer part one" }));
        await step(onEvent, [
          { type: "text", delta: ", part two" },
          { type: "tool_call_start", index: 0, id: "c1", name: "echo" },
          { type: "tool_call_delta", index: 0, delta: '{"x":"01234' },
        ], [...final.parts.slice(0, 2), { ...final.parts[2], input: '{"x":"01234' }]);
        await step(onEvent, [{ type: "tool_call_delta", index: 0, delta: '56789"}' }], final.parts);
        return final;
      },
    };
    const out = await runAgent({
      provider,
      tools: echoRunner(),
      store: writer,
      clock: systemClock,
      emit: () => {},
      newId: idSequence(),
      repair: (m) => m,
    }, loopInput("go"));
    assert.equal(out.error, undefined);
    assert.equal(out.text, "ok");
    // One read per snapshot: the three the steps waited for, none per delta.
    assert.equal(counts.reads, 3);
    await handle.close();
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
