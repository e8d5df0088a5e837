import assert from "node:assert/strict";
import { readChatStream } from "../../src/provider/read_stream.ts";
import { StreamAssembler } from "../../src/provider/stream_assembler.ts";
import { ProviderError } from "../../src/provider/errors.ts";
import type { StreamEvent } from "../../src/provider/types.ts";
import { sse } from "./helpers.ts";

const encoder = new TextEncoder();
const chunk = (content: string, finish: string | null = null) => ({
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

/** A body of `parts`, then (unless `end`) one that never ends; counts reads, sees cancel. */
function body(parts: string[], end = true) {
  const seen = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const part = parts[seen.pulls++];
      if (part !== undefined) c.enqueue(encoder.encode(part));
      else if (end) c.close();
      else return new Promise(() => {}); // a connection that stays open, silent
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

function read(stream: ReadableStream<Uint8Array>, signal?: AbortSignal) {
  const events: StreamEvent[] = [];
  const asm = new StreamAssembler((e) => events.push(e));
  const done = readChatStream(stream, asm, {
    label: "t/m",
    streamError: (e) => new ProviderError("stream_error", `in-stream: ${JSON.stringify(e)}`),
    readError: (e) => e,
    signal,
  });
  return { done, events, asm };
}

Deno.test("[DONE] ends the reading and closes the body; what follows is ignored", async () => {
  const { stream, seen } = body([sse(chunk("a"), "[DONE]", chunk("ignored")), "never read"], false);
  const r = read(stream);
  assert.deepEqual(await r.done, { sawDone: true });
  assert.deepEqual(r.asm.result().parts, [{ type: "text", text: "a" }]);
  assert.ok(seen.cancelled);
});

Deno.test("an abort stops the reading at once, also when the body does not end by itself", async () => {
  const { stream, seen } = body([sse(chunk("a"))], false);
  const ac = new AbortController();
  const r = read(stream, ac.signal);
  // The first delta arrives, then the body stays silent: only the abort can end the read.
  while (r.events.length === 0) await new Promise((res) => setTimeout(res, 1));
  ac.abort();
  assert.deepEqual(await r.done, { sawDone: false });
  assert.ok(seen.cancelled);
});

Deno.test("an in-stream error and a broken event are errors; the body is closed", async () => {
  for (
    const [text, pattern] of [
      [sse(chunk("a"), { error: { message: "overloaded" } }), /in-stream: .*overloaded/],
      [`event: error\ndata: {"message":"bad"}\n\n`, /in-stream: .*bad/],
      [`data: {"choices":[{"delta":{"conte\n\n`, /an event is not JSON/],
    ] as const
  ) {
    const { stream, seen } = body([text], false);
    await assert.rejects(read(stream).done, pattern);
    assert.ok(seen.cancelled);
  }
});
