/**
 * Reads one attempt's streamed body into the assembler. Each network read is decoded,
 * split into events and folded in synchronously (sse_reader.ts), so a delta costs the
 * same whether it is the first or the millionth, and nothing of the body is kept here.
 * Errors keep the SDK's meaning: an `{"error":…}` event or `event: error` is the
 * provider's error, a `data:` line that is not JSON is a broken stream (retried).
 */
import { ProviderError } from "./errors.ts";
import { SseReader } from "./sse_reader.ts";
import type { StreamAssembler } from "./stream_assembler.ts";

export interface ReadStreamOptions {
  /** `provider/model`, for messages. */
  label: string;
  /** The ProviderError for an error the provider sent inside the stream. */
  streamError: (error: unknown) => ProviderError;
  /** What a failed read (connection cut, idle timeout, abort) becomes. */
  readError: (error: unknown) => unknown;
  /** Stops reading at once when it aborts (the caller then throws its abort error). */
  signal?: AbortSignal;
}

/** Reads until `[DONE]` or the end of the body; says whether `[DONE]` arrived. */
export async function readChatStream(
  body: ReadableStream<Uint8Array> | null,
  asm: StreamAssembler,
  opts: ReadStreamOptions,
): Promise<{ sawDone: boolean }> {
  if (!body) throw new ProviderError("cut", `${opts.label}: the response has no body`);
  let sawDone = false;
  const sse = new SseReader(({ event, data }) => {
    if (sawDone) return; // whatever follows [DONE] is not part of the answer
    if (data === "[DONE]") {
      sawDone = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ProviderError(
        "cut",
        `${opts.label}: the stream broke: an event is not JSON: ${data.slice(0, 200)}`,
      );
    }
    const error = (chunk as { error?: unknown } | null)?.error;
    if (event === "error") throw opts.streamError(error ?? chunk);
    if (error) throw opts.streamError(error);
    asm.push(chunk);
  });
  const reader = body.getReader();
  // Aborting the request errors the body too, but reading stops here without waiting for it.
  const stop = () => void reader.cancel(opts.signal?.reason).catch(() => {});
  opts.signal?.addEventListener("abort", stop, { once: true });
  try {
    if (opts.signal?.aborted) stop();
    while (!sawDone) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        const err = opts.readError(e);
        // A connection lost or hung after the model said it was done loses nothing.
        const late = err instanceof ProviderError && (err.kind === "cut" || err.kind === "stalled");
        if (late && asm.finished) break;
        throw err;
      }
      if (next.done) {
        if (!opts.signal?.aborted) sse.end();
        break;
      }
      sse.push(next.value);
    }
  } finally {
    opts.signal?.removeEventListener("abort", stop);
    // After [DONE] or a failure the rest of the body is not wanted: close the connection.
    await reader.cancel().catch(() => {});
  }
  return { sawDone };
}
