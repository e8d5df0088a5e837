/**
 * Bringing the index in line with the session files. Runs when a store opens (so a
 * missing, damaged or stale index is rebuilt without anyone asking) and on `reindex`.
 *
 * Safe next to live writers in other processes: files are read outside the write
 * transaction, and a file is indexed only if its size inside the transaction is still
 * the size that was read (otherwise its writer is ahead of us and indexes it itself).
 */
import { join } from "node:path";
import { type ReadResult, readSessionFileSync } from "./reader.ts";
import type { SessionIndex } from "./session_index.ts";
import { hostName, pidAlive, readOwner } from "./lock.ts";
import { shortIdOf } from "./ids.ts";
import type { SessionHeader } from "./types.ts";
import type { SessionChanges } from "./index_rows.ts";

const BATCH = 200;

export interface ReconcileOptions {
  sessionsDir: string;
  index: SessionIndex;
  warn: (msg: string) => void;
  /** Re-read every file, not only new and changed ones. */
  force?: boolean;
  /** Ids of sessions this process has open (their handles keep the index current). */
  openHere?: Set<string>;
}

/** The header of a file, with the id its file name gives (the name is what we look up). */
export function checkedHeader(id: string, r: ReadResult): SessionHeader {
  return r.header.id === id ? r.header : { ...r.header, id, short_id: shortIdOf(id) };
}

/** Every index row of a session as its file says (to replace what the index held). */
export function fileRows(header: SessionHeader, r: ReadResult): SessionChanges {
  return {
    summary: r.state.summary(header),
    fileSize: r.size,
    messages: r.state.messages.values(),
    changes: r.state.changes,
    changesOffset: 0,
  };
}

/** Returns the number of session files (re)indexed. */
export function reconcile(o: ReconcileOptions): number {
  const files: string[] = [];
  const locks = new Set<string>();
  for (const e of Deno.readDirSync(o.sessionsDir)) {
    if (!e.isFile) continue;
    if (e.name.endsWith(".jsonl")) files.push(e.name.slice(0, -6));
    else if (e.name.endsWith(".lock")) locks.add(e.name.slice(0, -5));
  }
  const indexed = o.index.fileSizes();
  const todo: string[] = [];
  // Every file's size, at every store open: the index also catches up with files
  // changed behind its back. Concatenated, not join()ed: the folder is already clean.
  const dir = `${o.sessionsDir}/`;
  for (const id of files) {
    const known = indexed.get(id);
    if (!o.force) {
      const size = sizeOf(`${dir}${id}.jsonl`);
      // Size 0: a writer has just created it and not yet written the header.
      if (size === undefined || size === 0 || size === known) continue;
      // A live writer is ahead of its index rows by at most one write; it catches up.
      if (known !== undefined && locks.has(id) && liveWriter(o, id)) continue;
    }
    todo.push(id);
  }
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch: Array<{ id: string; r: ReadResult }> = [];
    for (const id of todo.slice(i, i + BATCH)) {
      // A file with a writer may end mid-append: only files at rest are worth a warning.
      const warn = locks.has(id) ? undefined : o.warn;
      try {
        batch.push({ id, r: readSessionFileSync(join(o.sessionsDir, `${id}.jsonl`), warn) });
      } catch {
        // removed or unreadable since the listing: nothing to index
      }
    }
    o.index.write(() => {
      for (const { id, r } of batch) {
        if (r.size === 0 || sizeOf(join(o.sessionsDir, `${id}.jsonl`)) !== r.size) continue;
        o.index.replace(fileRows(checkedHeader(id, r), r));
      }
    });
  }
  const present = new Set(files);
  const gone = [...indexed.keys()].filter((id) => !present.has(id));
  if (gone.length > 0) {
    o.index.write(() => {
      for (const id of gone) {
        // Checked again under the write lock: the file may have been created since the listing.
        if (sizeOf(join(o.sessionsDir, `${id}.jsonl`)) === undefined) o.index.delete(id);
      }
    });
  }
  return todo.length;
}

function sizeOf(path: string): number | undefined {
  try {
    return Deno.statSync(path).size;
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner is known to be running (unknown counts as not: re-reading is safe). */
function liveWriter(o: ReconcileOptions, id: string): boolean {
  if (o.openHere?.has(id)) return true;
  const owner = readOwner(join(o.sessionsDir, `${id}.lock`));
  if (!owner) return true; // being created right now
  const here = hostName();
  if (owner.host && here && owner.host !== here) return true;
  if (owner.pid === Deno.pid) return false; // ours, but not open: left over
  return pidAlive(owner.pid) === true;
}
