/**
 * A long chat-completions stream made on demand: `count` deltas of `piece` as answer
 * text, reasoning (`reasoning_content`) or the arguments of one tool call, then the
 * finish chunk, usage and `[DONE]`. Nothing is built ahead: a body of 200,000 deltas
 * costs its reader's buffers, not 30 MB of prepared SSE, so the memory a benchmark or
 * test measures is the consumer's. Shared by tests/bench/stream_bench.ts and the
 * provider's memory test.
 */

export type DeltaKind = "text" | "reasoning" | "arguments";

export const DELTA_KINDS: DeltaKind[] = ["text", "reasoning", "arguments"];

export interface DeltaStreamOptions {
  /** Characters of each delta (default "abcd", the size real providers send). */
  piece?: string;
  /**
   * Bytes per read, cut anywhere (a busy network coalesces events); 0 = one event per
   * read (a provider flushing each token). Default 16 KiB.
   */
  readBytes?: number;
}

const encoder = new TextEncoder();
const BASE = `"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench"`;

function event(delta: unknown, finish: string | null = null): string {
  const choice = { index: 0, delta, logprobs: null, finish_reason: finish };
  return `data: {${BASE},"choices":[${JSON.stringify(choice)}]}\n\n`;
}

function deltaOf(kind: DeltaKind, piece: string): unknown {
  if (kind === "text") return { content: piece };
  if (kind === "reasoning") return { reasoning_content: piece };
  return { tool_calls: [{ index: 0, function: { arguments: piece } }] };
}

/** The SSE text before the deltas, one delta, and the text after them. */
export function deltaEvents(kind: DeltaKind, count: number, piece = "abcd") {
  const head = kind === "arguments"
    ? event({
      role: "assistant",
      content: null,
      tool_calls: [{
        index: 0,
        id: "call_bench",
        type: "function",
        function: { name: "write", arguments: "" },
      }],
    })
    : event({ role: "assistant", content: "" });
  const usage = { prompt_tokens: 10, completion_tokens: count, total_tokens: 10 + count };
  const tail = event({}, kind === "arguments" ? "tool_calls" : "stop") +
    `data: {${BASE},"choices":[],"usage":${JSON.stringify(usage)}}\n\n` + "data: [DONE]\n\n";
  return { head, delta: event(deltaOf(kind, piece)), tail };
}

/** The stream as a byte stream (what a fetch body is), read after read. */
export function deltaStream(
  kind: DeltaKind,
  count: number,
  opts: DeltaStreamOptions = {},
): ReadableStream<Uint8Array> {
  const { head, delta, tail } = deltaEvents(kind, count, opts.piece);
  const readBytes = opts.readBytes ?? 16 * 1024;
  const one = encoder.encode(delta);
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(tail);
  // Deltas to cover one read from any starting offset inside a delta.
  const perRead = readBytes > 0 ? Math.ceil(readBytes / one.length) + 1 : 1;
  const run = new Uint8Array(one.length * perRead);
  for (let i = 0; i < perRead; i++) run.set(one, i * one.length);
  const deltaBytes = one.length * count;
  const total = headBytes.length + deltaBytes + tailBytes.length;
  let at = 0;

  /** Bytes [at, at+len) of the whole body. */
  const slice = (len: number): Uint8Array => {
    const out = new Uint8Array(len);
    for (let filled = 0; filled < len;) {
      const pos = at + filled;
      let part: Uint8Array;
      if (pos < headBytes.length) part = headBytes.subarray(pos);
      else if (pos < headBytes.length + deltaBytes) {
        const inDeltas = pos - headBytes.length;
        const left = deltaBytes - inDeltas;
        const from = inDeltas % one.length;
        part = run.subarray(from, from + Math.min(left, run.length - from));
      } else part = tailBytes.subarray(pos - headBytes.length - deltaBytes);
      const take = Math.min(part.length, len - filled);
      out.set(part.subarray(0, take), filled);
      filled += take;
    }
    at += len;
    return out;
  };

  return new ReadableStream<Uint8Array>({
    type: "bytes",
    pull(controller) {
      if (at >= total) {
        controller.close();
        return;
      }
      let len: number;
      if (readBytes > 0) len = Math.min(readBytes, total - at);
      else if (at < headBytes.length) len = headBytes.length - at;
      else if (at < headBytes.length + deltaBytes) len = one.length;
      else len = total - at;
      controller.enqueue(slice(len));
    },
  });
}

/** A fetch that answers every request with a fresh stream of these deltas. */
export function deltaFetch(
  kind: DeltaKind,
  count: number,
  opts: DeltaStreamOptions = {},
): typeof fetch {
  return () =>
    Promise.resolve(
      new Response(deltaStream(kind, count, opts), {
        headers: { "content-type": "text/event-stream" },
      }),
    );
}
