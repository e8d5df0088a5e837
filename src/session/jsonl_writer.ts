/**
 * Appending records to one session file. One open handle in append mode per session,
 * and every append is one synchronous write of whole lines: nothing else runs in
 * between, so records never interleave, and a crash can tear only the last line.
 * Streaming snapshots wait in a queue (one slot per message id, so a burst of
 * snapshots becomes one line) until the debounce timer or an explicit flush.
 */
import type { Message } from "../domain/message.ts";
import type { SessionRecord } from "./types.ts";
import { syncFinishedAt } from "./records.ts";

const encoder = new TextEncoder();

export class JsonlFile {
  readonly path: string;
  #file: Deno.FsFile;
  /** The file this handle writes to, to notice when the path no longer leads to it. */
  #identity: { dev: number; ino: number | null };
  /** A failed or torn write left a partial line: start the next one on a fresh line. */
  #needsNewline: boolean;
  size: number;

  private constructor(path: string, file: Deno.FsFile, size: number, needsNewline: boolean) {
    this.path = path;
    this.#file = file;
    const { dev, ino } = file.statSync();
    this.#identity = { dev, ino };
    this.size = size;
    this.#needsNewline = needsNewline;
  }

  /** Creates the file with its header line; fails if it exists. */
  static create(path: string, header: SessionRecord): JsonlFile {
    const file = Deno.openSync(path, { createNew: true, write: true, append: true });
    let out: JsonlFile | undefined;
    try {
      out = new JsonlFile(path, file, 0, false);
      out.append([JSON.stringify(header)]);
    } catch (err) {
      if (out) out.close();
      else file.close();
      throw err;
    }
    return out;
  }

  /** Opens an existing file for appending; `endsClean` = its last byte is a newline. */
  static openAppend(path: string, size: number, endsClean: boolean): JsonlFile {
    const file = Deno.openSync(path, { write: true, append: true });
    try {
      return new JsonlFile(path, file, size, !endsClean);
    } catch (err) {
      file.close();
      throw err;
    }
  }

  /**
   * Writes the lines, each ending in "\n", in one go. Throws when the write fails, and
   * when the file was removed or replaced since it was opened (its data dir deleted):
   * a write to the old file would succeed and be lost.
   */
  append(lines: string[]): void {
    if (lines.length === 0) return;
    this.#assertInPlace();
    const bytes = encodeLines(lines, this.#needsNewline);
    let done = 0;
    try {
      while (done < bytes.length) done += this.#file.writeSync(bytes.subarray(done));
    } catch (err) {
      if (done > 0) this.#needsNewline = true;
      this.size += done;
      throw err;
    }
    this.#needsNewline = false;
    this.size += bytes.length;
  }

  #assertInPlace(): void {
    let now: Deno.FileInfo;
    try {
      now = Deno.statSync(this.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new Error("the file was removed (was the data dir deleted?)", { cause: err });
      }
      throw err;
    }
    const was = this.#identity;
    if (was.ino !== null && (now.ino !== was.ino || now.dev !== was.dev)) {
      throw new Error("the file was replaced by another one since mopac opened it");
    }
  }

  close(): void {
    try {
      this.#file.close();
    } catch {
      // already closed
    }
  }
}

/**
 * The lines as UTF-8, each ending in "\n", in one buffer of the exact size: joining
 * them first would copy a long streamed message once more for every snapshot. Most
 * lines are ASCII (a byte a character) and are encoded straight into it.
 */
function encodeLines(lines: string[], newlineFirst: boolean): Uint8Array {
  let size = newlineFirst ? 1 : 0;
  for (const line of lines) size += line.length + 1;
  const out = new Uint8Array(size);
  let at = 0;
  if (newlineFirst) out[at++] = 10;
  for (const line of lines) {
    const { read, written } = encoder.encodeInto(line, out.subarray(at, at + line.length));
    if (read < line.length) return encodeEach(lines, newlineFirst); // not ASCII
    at += written;
    out[at++] = 10;
  }
  return out;
}

function encodeEach(lines: string[], newlineFirst: boolean): Uint8Array {
  const encoded = lines.map((line) => encoder.encode(line));
  const out = new Uint8Array(encoded.reduce((n, b) => n + b.length + 1, newlineFirst ? 1 : 0));
  let at = 0;
  if (newlineFirst) out[at++] = 10;
  for (const bytes of encoded) {
    out.set(bytes, at);
    at += bytes.length;
    out[at++] = 10;
  }
  return out;
}

/** A message to write; `owned` when it was made for the store alone (a live snapshot). */
type Pending = { message: Message; owned: boolean } | { record: SessionRecord };

/**
 * How long a streaming snapshot may wait, given the size of the message's last line.
 * Each snapshot rewrites the whole message, so a fixed interval makes the bytes written
 * grow with the square of the message length; an interval that grows with the size
 * keeps them linear. A crash loses at most MAX_SNAPSHOT_DELAY_MS of streamed text.
 */
export function snapshotDelay(debounceMs: number, lineBytes: number): number {
  return Math.max(debounceMs, Math.min(MAX_SNAPSHOT_DELAY_MS, lineBytes / SNAPSHOT_BYTES_PER_MS));
}

export const MAX_SNAPSHOT_DELAY_MS = 1000;
const SNAPSHOT_BYTES_PER_MS = 16;

/** Records waiting to be written, in call order; message snapshots share one slot per id. */
export class WriteQueue {
  #items: Pending[] = [];
  #slots = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #debounceMs: number;
  readonly #onDue: () => void;

  constructor(debounceMs: number, onDue: () => void) {
    this.#debounceMs = debounceMs;
    this.#onDue = onDue;
  }

  get length(): number {
    return this.#items.length;
  }

  /**
   * Keeps a reference: the message is serialized when written, so the newest state goes
   * out. An `owned` message (made for the store alone) becomes the record as it is.
   */
  addMessage(message: Message, owned = false): void {
    const slot = this.#slots.get(message.id);
    if (slot !== undefined) this.#items[slot] = { message, owned };
    else {
      this.#slots.set(message.id, this.#items.length);
      this.#items.push({ message, owned });
    }
  }

  addRecord(record: SessionRecord): void {
    this.#items.push({ record });
  }

  /**
   * Arms the timer unless it is running. It is not pushed back by later snapshots, so a
   * long stream still reaches the file every `delayMs`.
   */
  schedule(delayMs: number = this.#debounceMs): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#onDue();
    }, delayMs);
  }

  cancelTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The pending records as written (copies) and their lines; the queue is unchanged. */
  render(): { records: SessionRecord[]; lines: string[] } {
    const records: SessionRecord[] = [];
    const lines: string[] = [];
    for (const item of this.#items) {
      const record: SessionRecord = "message" in item
        ? { type: "message", message: syncFinishedAt(item.message) }
        : item.record;
      const line = JSON.stringify(record);
      lines.push(line);
      // Parsing the line back gives a detached copy that matches the file exactly; a
      // snapshot made for the store is detached already (and may be long: no copy).
      records.push("owned" in item && item.owned ? record : JSON.parse(line) as SessionRecord);
    }
    return { records, lines };
  }

  clear(): void {
    this.#items = [];
    this.#slots.clear();
    this.cancelTimer();
  }
}
