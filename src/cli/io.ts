/**
 * stdout and stderr for the CLI. A write never blocks the event loop: text waits in a
 * queue while the OS takes what came before, so a slow reader (`mopac run … | slow`)
 * holds back only the output, never the provider's stream, the idle timer that watches
 * it, a tool or a signal. main.ts drains both queues before it exits (DESIGN §1: stdout
 * is flushed fully, also when it is a pipe).
 */

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Resolves when everything written so far has reached the OS (or its reader left). */
  drain(): Promise<void>;
}

interface Writable {
  write(p: Uint8Array): Promise<number>;
}

const encoder = new TextEncoder();
const WRITE_INTERVAL_MS = 2;

/**
 * One output stream's queue. Whatever arrives while a write is under way is written
 * next, in one piece, so a stream of small deltas costs few writes. A reader that goes
 * away (`mopac run … | head`) is not an error: the rest is dropped.
 */
export class QueuedWriter {
  #pending: string[] = [];
  /**
   * One buffer reused for every write (one write is under way at a time, so they never
   * overlap): a streamed answer comes a few characters at a time, and `encode` would make
   * a native buffer for each of hundreds of thousands of deltas for the collector to free.
   */
  readonly #scratch = new Uint8Array(64 * 1024);
  #writing: Promise<void> | undefined;
  #closed = false;
  /** Why the stream stopped taking output, when it was not a reader leaving. */
  failure: Error | undefined;

  constructor(private readonly file: Writable) {}

  write(text: string): void {
    if (this.#closed || text === "") return;
    this.#pending.push(text);
    this.#writing ??= this.#pump();
  }

  /** Resolves when the queue is empty. */
  drain(): Promise<void> {
    return this.#writing ?? Promise.resolve();
  }

  async #pump(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const text = this.#pending.length === 1 ? this.#pending[0] : this.#pending.join("");
        this.#pending = [];
        // UTF-16 to UTF-8 takes at most 3 bytes per code unit; a larger text gets its own buffer.
        let bytes = text.length * 3 <= this.#scratch.length
          ? this.#scratch.subarray(0, encoder.encodeInto(text, this.#scratch).written)
          : encoder.encode(text);
        const started = performance.now();
        while (bytes.length > 0) bytes = bytes.subarray(await this.file.write(bytes));
        // An async write costs a trip to another thread: one every WRITE_INTERVAL_MS at most
        // lets a fast stream of deltas gather into few writes, at a cost of 2 ms latency.
        const wait = WRITE_INTERVAL_MS - (performance.now() - started);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    } catch (err) {
      this.#closed = true;
      this.#pending = [];
      if (!(err instanceof Deno.errors.BrokenPipe)) this.failure = err as Error;
    } finally {
      this.#writing = undefined;
    }
  }
}

export function processIo(): Io & { stdout: QueuedWriter; stderr: QueuedWriter } {
  const stdout = new QueuedWriter(Deno.stdout);
  const stderr = new QueuedWriter(Deno.stderr);
  return {
    stdout,
    stderr,
    out: (t) => stdout.write(t),
    err: (t) => stderr.write(t),
    drain: async () => {
      await Promise.all([stdout.drain(), stderr.drain()]);
    },
  };
}
