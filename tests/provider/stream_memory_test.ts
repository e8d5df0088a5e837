/**
 * A streamed delta must cost memory in proportion to its own bytes. 50,000 four-character
 * deltas of answer text, reasoning and tool-call arguments are served one event per
 * read by a real local HTTP server (so the runtime's read buffers are the real ones)
 * to a provider, and the heap (JS heap + external buffers, after a full GC) is measured
 * inside this process at the last delta, while everything the stream holds is still
 * alive. Before the fix each delta kept its read's 64 KiB buffer: ~3 GB here.
 */
import assert from "node:assert/strict";
import v8 from "node:v8";
import vm from "node:vm";
import { createProvider } from "../../src/provider/provider.ts";
import type { StreamEvent } from "../../src/provider/types.ts";
import { DELTA_KINDS, type DeltaKind, deltaStream } from "../_support/delta_stream.ts";
import { testModel, userRequest } from "./helpers.ts";

const DELTAS = 50_000;
const PIECE = "abcd";
/** What may stay alive beyond the answer itself: "a few MB". */
const ALLOWED_BEYOND_ANSWER = 3 * 1024 * 1024;

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Live bytes now: the JS heap and the buffers outside it, after a full collection. */
function liveBytes(): number {
  gc();
  gc();
  const m = Deno.memoryUsage();
  return m.heapUsed + m.external;
}

const isDelta = (e: StreamEvent) =>
  e.type === "text" || e.type === "reasoning" || e.type === "tool_call_delta";

Deno.test("50,000 streamed deltas keep no more than a few MB beyond the answer", async (t) => {
  let kind: DeltaKind = "text";
  let count = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    // One event per read, as a provider that flushes every token sends them.
    new Response(deltaStream(kind, count, { piece: PIECE, readBytes: 0 }), {
      headers: { "content-type": "text/event-stream" },
    }));
  const model = testModel({
    base_url: `http://127.0.0.1:${server.addr.port}/v1`,
    pricing: { input: 0, output: 0, cached_input: 0 },
  });
  try {
    const provider = createProvider(model);
    const stream = async (k: DeltaKind, n: number, atLast?: () => void) => {
      kind = k;
      count = n;
      let seen = 0;
      const turn = await provider.complete(userRequest(), (e) => {
        if (isDelta(e) && ++seen === n) atLast?.();
      });
      assert.equal(seen, n);
      return turn;
    };
    // Loads the SDK and compiles the path, so the measurement sees only the stream.
    for (const k of DELTA_KINDS) await stream(k, 1000);

    for (const k of DELTA_KINDS) {
      await t.step(k, async () => {
        const before = liveBytes();
        let atLast = 0;
        const turn = await stream(k, DELTAS, () => (atLast = liveBytes()));
        const part = turn.parts[0];
        const answer = part.type === "tool_call" ? part.input : (part as { text: string }).text;
        assert.equal(answer, PIECE.repeat(DELTAS), "the whole answer arrived");
        const kept = atLast - before - answer.length; // one byte per ASCII character
        assert.ok(
          kept < ALLOWED_BEYOND_ANSWER,
          `${k}: ${DELTAS} deltas kept ${(kept / 1e6).toFixed(1)} MB beyond the ` +
            `${(answer.length / 1e6).toFixed(1)} MB answer while streaming`,
        );
      });
    }
  } finally {
    await server.shutdown();
  }
});
