/**
 * The first session write of an agent run that fails for good (disk full, file made
 * unwritable, data dir removed: a StorageError) stops that run: `signal` aborts with
 * the error, so a request or tool call in flight ends at once and the loop reports
 * it as the run's ending (exit 6) with what was done so far. Writes nobody waits for
 * (file changes and tool state the tools record) are caught here, so their failure
 * ends the run instead of the process.
 */
import type { SessionWriter } from "../session/types.ts";
import { StorageError } from "../util/errors.ts";

export class StorageWatch {
  readonly #failed = new AbortController();

  /** Aborted with the StorageError of the first failed write. */
  get signal(): AbortSignal {
    return this.#failed.signal;
  }

  /** `writer`, with each failed write noticed before it is passed on. */
  watch(writer: SessionWriter): SessionWriter {
    const seen = <T>(p: Promise<T>): Promise<T> =>
      p.catch((err) => {
        this.#notice(err);
        throw err;
      });
    return {
      id: writer.id,
      saveMessage: (m, opts) => seen(writer.saveMessage(m, opts)),
      // Snapshots are written on the store's timer; a failed one fails the next flush.
      liveMessage: (id, read) => writer.liveMessage(id, read),
      saveMeta: (meta) => seen(writer.saveMeta(meta)),
      recordChange: (change, id) => seen(writer.recordChange(change, id)),
      flush: () => seen(writer.flush()),
    };
  }

  /** For writes nobody waits for: a failure is noticed (and ends the run), never thrown. */
  static background(write: Promise<unknown>): void {
    write.catch(() => {});
  }

  #notice(err: unknown): void {
    if (err instanceof StorageError && !this.#failed.signal.aborted) this.#failed.abort(err);
  }
}
