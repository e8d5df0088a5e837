/**
 * A response body as the stream reader sees it: re-streamed with an idle
 * timeout and a copy of every read, read from the network into one reused buffer.
 */

/**
 * Re-streams `src`, failing it with `onStall()` when a read waits longer than `ms`.
 * One timer serves many reads: a read notes when it started and arms the timer only
 * if none is set; when it fires it re-arms itself for what the pending read has left,
 * or lapses when no read is pending. (With a timer per read, the timers took about a
 * sixth of the CPU a stream of small events used.)
 */
export function watchBody(
  src: ReadableStream<Uint8Array>,
  ms: number,
  onChunk: (b: Uint8Array) => void,
  onStall: () => Error,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const reader = chunkReader(src);
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending read started; undefined while none is pending. */
  let waitingSince: number | undefined;
  let stalled: Error | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    onEnd();
  };
  const check = () => {
    timer = undefined;
    if (waitingSince === undefined || ended) return; // armed again by the next read
    const waited = Date.now() - waitingSince;
    if (waited < ms) {
      timer = setTimeout(check, ms - waited);
      return;
    }
    stalled = onStall();
    reader.cancel(stalled).catch(() => {}); // ends the pending read
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      waitingSince = Date.now();
      timer ??= setTimeout(check, ms);
      try {
        const r = await reader.read();
        waitingSince = undefined;
        if (stalled) throw stalled;
        if (r.done) {
          controller.close();
          end();
        } else {
          onChunk(r.value);
          controller.enqueue(r.value);
        }
      } catch (e) {
        controller.error(stalled ?? e);
        end();
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}

/** Size of the one buffer a byte stream is read into. */
const READ_BUFFER_BYTES = 64 * 1024;

interface ChunkReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * Reads `src` chunk by chunk. A byte stream (a fetch body) is read into one reused
 * buffer and each chunk handed on as an exact-size copy: the default reader allocates
 * a fresh 64 KiB buffer for every read, and a provider sends one small read per token,
 * so a long answer churned 64 KiB per token until the next GC (up to ~65 MB measured).
 */
function chunkReader(src: ReadableStream<Uint8Array>): ChunkReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = src.getReader({ mode: "byob" });
  } catch {
    return src.getReader(); // not a byte stream (e.g. a test's body)
  }
  let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
  return {
    async read() {
      const r = await byob.read(new Uint8Array(buffer));
      if (r.done || !r.value) return { done: true, value: undefined };
      buffer = r.value.buffer as ArrayBuffer; // the same memory, handed back after the read
      return { done: false, value: r.value.slice() };
    },
    cancel: (reason) => byob.cancel(reason),
  };
}
