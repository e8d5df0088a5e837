/**
 * One open session: the SessionWriter the agent loop writes to. Records go to the
 * JSONL file first (the truth), then to the index in the same step; a busy index is
 * retried later and never holds up the file. Without a file, lock and index (the
 * ephemeral store) the same handle keeps the session in memory only.
 */
import type { Message } from "../domain/message.ts";
import type { FileChange } from "../domain/tool_records.ts";
import type {
  FileChangeRecord,
  LiveMessage,
  LoadedSession,
  SessionHandle,
  SessionHeader,
  SessionMeta,
  SessionRecord,
  StoreOptions,
} from "./types.ts";
import { asRecord, finishProblem, messageProblem } from "./records.ts";
import { type JsonlFile, snapshotDelay, WriteQueue } from "./jsonl_writer.ts";
import type { SessionLock } from "./lock.ts";
import type { SessionIndex } from "./session_index.ts";
import type { SessionState } from "./state.ts";
import { isBusy } from "./index_db.ts";
import { attempt, storageFailure } from "./failures.ts";
import { LiveMessages } from "./live_messages.ts";

/** How every handle of a store writes: the store's options with the defaults filled in. */
export interface HandleSettings {
  debounceMs: number;
  now: () => number;
  warn: (msg: string) => void;
}

export function handleSettings(opts: StoreOptions): HandleSettings {
  return {
    debounceMs: opts.debounceMs ?? 50,
    now: opts.now ?? Date.now,
    warn: opts.warn ?? (() => {}),
  };
}

export interface HandleParts extends HandleSettings {
  header: SessionHeader;
  state: SessionState;
  file?: JsonlFile;
  lock?: SessionLock;
  index?: SessionIndex;
  onClose: (handle: SessionHandleImpl) => void;
}

/** While streaming, wait at most this long for another process's index write. */
const STREAM_BUSY_MS = 250;
const CLOSE_ATTEMPTS = 20;

type IndexSync = "done" | "busy" | "off";

export class SessionHandleImpl implements SessionHandle {
  readonly id: string;
  readonly header: SessionHeader;
  readonly #p: HandleParts;
  readonly #queue: WriteQueue;
  #index: SessionIndex | undefined;
  #dirtyMessages = new Set<string>();
  readonly #live = new LiveMessages();
  #newChanges: FileChangeRecord[] = [];
  /** Length of the last line written per message id (sets the snapshot interval). */
  #lineBytes = new Map<string, number>();
  #indexDirty: boolean;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #warnedWrite = false;
  #closed = false;

  constructor(parts: HandleParts, indexNow: boolean) {
    this.#p = parts;
    this.id = parts.header.id;
    this.header = parts.header;
    this.#index = parts.index;
    this.#indexDirty = indexNow;
    this.#queue = new WriteQueue(parts.debounceMs, () => this.#writeFromTimer());
    if (indexNow) this.#syncIndex(STREAM_BUSY_MS);
  }

  saveMessage(message: Message, opts?: { flush?: boolean }): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      const problem = messageProblem(message) ?? finishProblem(message);
      if (problem) throw new TypeError(`cannot save ${problem}`);
      this.#live.end(message.id);
      this.#queue.addMessage(message);
      if (opts?.flush) return this.#writeNow();
      const lastLine = this.#lineBytes.get(message.id) ?? 0;
      this.#queue.schedule(snapshotDelay(this.#p.debounceMs, lastLine));
    });
  }

  liveMessage(id: string, read: () => Message): LiveMessage {
    this.#assertOpen();
    this.#live.follow(id, read);
    return {
      changed: () => {
        if (this.#closed || !this.#live.changed(id, read)) return;
        // Without a file there is no crash to recover from: the snapshot waits for the
        // next write, flush or load instead of a timer.
        if (!this.#p.file) return;
        this.#queue.schedule(snapshotDelay(this.#p.debounceMs, this.#lineBytes.get(id) ?? 0));
      },
    };
  }

  saveMeta(meta: Omit<SessionMeta, "type" | "at">): Promise<void> {
    return this.#saveRecord({ ...meta, type: "meta", at: this.#p.now() }, "meta");
  }

  recordChange(change: FileChange, messageId?: string): Promise<void> {
    const record: FileChangeRecord = { type: "file_change", at: this.#p.now(), change };
    if (messageId !== undefined) record.message_id = messageId;
    return this.#saveRecord(record, "file change");
  }

  flush(): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      this.#writeNow();
    });
  }

  load(): Promise<LoadedSession> {
    return attempt(() => {
      if (!this.#closed) this.#writeNow();
      return this.#p.state.snapshot(this.header);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#writeNow();
    } finally {
      // The index is only derived data, but a session missing from `sessions list` is
      // confusing: wait out other writers for a while before giving up on it.
      for (let i = 0; i < CLOSE_ATTEMPTS && this.#syncIndex(1000) === "busy"; i++) {
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 100));
      }
      this.#shut();
    }
  }

  closeSync(): void {
    if (this.#closed) return;
    try {
      this.#writeNow();
    } catch (err) {
      this.#p.warn(`session ${this.header.short_id}: could not write pending records: ${err}`);
    }
    this.#syncIndex(2000);
    this.#shut();
  }

  #saveRecord(record: SessionRecord, what: string): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      if (!asRecord(JSON.parse(JSON.stringify(record)))) {
        throw new TypeError(`cannot save an invalid ${what} record`);
      }
      this.#queue.addRecord(record);
      this.#writeNow();
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`session ${this.header.short_id} is closed`);
  }

  #writeFromTimer(): void {
    if (this.#closed) return;
    try {
      this.#writeNow();
    } catch (err) {
      // Kept in the queue: the next flush retries and reports it to the caller.
      if (!this.#warnedWrite) this.#p.warn(`session ${this.header.short_id}: write failed: ${err}`);
      this.#warnedWrite = true;
    }
  }

  /** Writes the queue (throws when the file write fails; the queue is kept), then indexes. */
  #writeNow(): void {
    this.#queue.cancelTimer();
    this.#takeSnapshots();
    if (this.#queue.length > 0) {
      const { records, lines } = this.#queue.render();
      const file = this.#p.file;
      try {
        file?.append(lines);
      } catch (err) {
        throw storageFailure(file!.path, err);
      }
      this.#queue.clear();
      this.#warnedWrite = false;
      records.forEach((r, i) => {
        this.#p.state.apply(r);
        if (r.type === "message") {
          this.#dirtyMessages.add(r.message.id);
          this.#lineBytes.set(r.message.id, lines[i].length);
        }
        if (r.type === "file_change") this.#newChanges.push(r);
      });
      this.#indexDirty = true;
    }
    this.#syncIndex(STREAM_BUSY_MS);
  }

  /** Streaming messages that changed, as they are now, join the queue. */
  #takeSnapshots(): void {
    for (const message of this.#live.take()) {
      const problem = messageProblem(message) ?? finishProblem(message);
      if (problem) this.#p.warn(`session ${this.header.short_id}: snapshot skipped: ${problem}`);
      else this.#queue.addMessage(message, true);
    }
  }

  #syncIndex(busyMs: number): IndexSync {
    const index = this.#index;
    if (!index) return "off";
    if (!this.#indexDirty) return "done";
    const state = this.#p.state;
    const messages = [...this.#dirtyMessages].map((id) => state.messages.get(id)!);
    try {
      index.write(
        () =>
          index.apply({
            summary: state.summary(this.header),
            fileSize: this.#p.file?.size ?? 0,
            messages,
            changes: this.#newChanges,
            changesOffset: state.changes.length - this.#newChanges.length,
          }),
        busyMs,
        1,
      );
    } catch (err) {
      if (isBusy(err)) {
        this.#scheduleRetry();
        return "busy";
      }
      this.#p.warn(
        `index update failed for session ${this.header.short_id} (${err}); ` +
          "`mopac sessions reindex` rebuilds the index",
      );
      this.#index = undefined;
      return "off";
    }
    this.#dirtyMessages.clear();
    this.#newChanges = [];
    this.#indexDirty = false;
    return "done";
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined || this.#closed) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#closed) this.#syncIndex(STREAM_BUSY_MS);
    }, 100 + Math.random() * 200);
  }

  #shut(): void {
    this.#closed = true;
    this.#queue.clear();
    this.#live.clear();
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#p.file?.close();
    this.#p.lock?.release();
    this.#p.onClose(this);
  }
}
