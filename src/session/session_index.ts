/**
 * Reads and writes of `index.db`: session rows with totals, message text for
 * full-text search, and the file-edit history. Writers update it incrementally as
 * records reach the JSONL file; the store replaces a session's rows wholesale when it
 * (re)indexes that session from its file.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { SearchHit, SessionSummary } from "./types.ts";
import {
  BUSY_TIMEOUT_MS,
  isCorrupt,
  openIndexDb,
  quickCheck,
  removeDbFiles,
  writeTx,
} from "./index_db.ts";
import { searchableText } from "./state.ts";
import {
  ftsQuery,
  type IndexedChange,
  type SessionChanges,
  SUMMARY_COLS,
  toChange,
  toHit,
  toSummary,
} from "./index_rows.ts";

export class SessionIndex {
  readonly path: string;
  #db: DatabaseSync;
  #stmts = new Map<string, StatementSync>();
  readonly #warn: (msg: string) => void;
  /** Called after the file was replaced by an empty one: refill it from the session files. */
  onRebuilt: () => void = () => {};
  #rebuilding = false;

  constructor(path: string, warn: (msg: string) => void) {
    this.path = path;
    this.#warn = warn;
    this.#db = openIndexDb(path, warn);
  }

  #q(sql: string): StatementSync {
    let s = this.#stmts.get(sql);
    if (!s) this.#stmts.set(sql, s = this.#db.prepare(sql));
    return s;
  }

  /**
   * Runs `fn`; when SQLite reports damage, replaces the file with an empty index,
   * refills it from the session files and runs `fn` once more.
   */
  #guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!isCorrupt(err) || this.#rebuilding || this.path === ":memory:") throw err;
      this.#warn(`index ${this.path} is damaged (${err}); rebuilding it from the session files`);
      this.#replaceFile();
      return fn();
    }
  }

  #replaceFile(): void {
    this.close();
    this.#stmts.clear();
    removeDbFiles(this.path);
    this.#db = openIndexDb(this.path, this.#warn);
    this.#rebuilding = true;
    try {
      this.onRebuilt();
    } finally {
      this.#rebuilding = false;
    }
  }

  /** A full quick_check; a damaged file is replaced. Returns what was found, if anything. */
  check(): string | undefined {
    const found = quickCheck(this.#db);
    if (found && this.path !== ":memory:") {
      this.#warn(`index ${this.path} failed its check (${found}); rebuilding it`);
      this.#replaceFile();
    }
    return found;
  }

  /** A write transaction; `busyMs` bounds the wait for other writers. */
  write<T>(fn: () => T, busyMs = BUSY_TIMEOUT_MS, retries?: number): T {
    return this.#guard(() => {
      if (busyMs !== BUSY_TIMEOUT_MS) this.#db.exec(`PRAGMA busy_timeout = ${busyMs}`);
      try {
        return writeTx(this.#db, fn, retries);
      } finally {
        if (busyMs !== BUSY_TIMEOUT_MS) this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    });
  }

  /** Upserts the session row, the given messages and appends the given changes (call inside write). */
  apply(c: SessionChanges): void {
    const s = c.summary;
    this.#q(
      `INSERT INTO sessions (${SUMMARY_COLS}, file_size) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
       ON CONFLICT(id) DO UPDATE SET short_id=excluded.short_id, parent_id=excluded.parent_id,
       title=excluded.title, created_at=excluded.created_at, updated_at=excluded.updated_at,
       message_count=excluded.message_count, input_tokens=excluded.input_tokens,
       output_tokens=excluded.output_tokens, cached_input_tokens=excluded.cached_input_tokens,
       cost_usd=excluded.cost_usd, cwd=excluded.cwd, model=excluded.model,
       status=excluded.status, exit_code=excluded.exit_code, file_size=excluded.file_size`,
    ).run(
      s.id,
      s.short_id,
      s.parent_id ?? null,
      s.title ?? null,
      s.created_at,
      s.updated_at,
      s.message_count,
      s.input_tokens,
      s.output_tokens,
      s.cached_input_tokens,
      s.cost_usd,
      s.cwd,
      s.model ?? null,
      s.status ?? null,
      s.exit_code ?? null,
      c.fileSize,
    );
    for (const m of c.messages) {
      const row = this.#q(
        `INSERT INTO messages (session_id, message_id, role, created_at) VALUES (?,?,?,?)
         ON CONFLICT(session_id, message_id) DO UPDATE SET role=excluded.role
         RETURNING seq`,
      ).get(s.id, m.id, m.role, m.created_at) as { seq: number };
      this.#q("DELETE FROM message_fts WHERE rowid = ?").run(row.seq);
      const text = searchableText(m);
      if (text) {
        this.#q("INSERT INTO message_fts (rowid, text, session_id, message_id) VALUES (?,?,?,?)")
          .run(row.seq, text, s.id, m.id);
      }
    }
    c.changes.forEach((ch, i) => {
      this.#q(
        `INSERT INTO file_changes (session_id, ord, message_id, path, before, after, at)
         VALUES (?,?,?,?,?,?,?) ON CONFLICT(session_id, ord) DO NOTHING`,
      ).run(
        s.id,
        c.changesOffset + i,
        ch.message_id ?? null,
        ch.change.path,
        ch.change.before,
        ch.change.after,
        ch.at,
      );
    });
  }

  /** Drops every row of a session (call inside write). */
  delete(id: string): void {
    this.#q(
      "DELETE FROM message_fts WHERE rowid IN (SELECT seq FROM messages WHERE session_id = ?)",
    ).run(id);
    this.#q("DELETE FROM messages WHERE session_id = ?").run(id);
    this.#q("DELETE FROM file_changes WHERE session_id = ?").run(id);
    this.#q("DELETE FROM sessions WHERE id = ?").run(id);
  }

  /** Replaces a session's rows with what its file says (call inside write). */
  replace(c: SessionChanges): void {
    this.delete(c.summary.id);
    this.apply(c);
  }

  /** id → size of the file the rows reflect. */
  fileSizes(): Map<string, number> {
    return this.#guard(() => {
      // all(), not iterate(): one call into SQLite instead of one per row (5,000 rows:
      // ~10 instead of ~20 ms, on every store open).
      const out = new Map<string, number>();
      for (const r of this.#q("SELECT id, file_size FROM sessions").all()) {
        out.set(r.id as string, r.file_size as number);
      }
      return out;
    });
  }

  /** Size of the file the session's rows reflect (undefined: not indexed). */
  fileSize(id: string): number | undefined {
    return this.#guard(() =>
      this.#q("SELECT file_size FROM sessions WHERE id = ?").get(id)?.file_size as
        | number
        | undefined
    );
  }

  list(limit?: number, includeChildren = false): SessionSummary[] {
    const where = includeChildren ? "" : "WHERE parent_id IS NULL";
    return this.#guard(() =>
      this.#q(
        `SELECT ${SUMMARY_COLS} FROM sessions ${where} ORDER BY updated_at DESC, id DESC LIMIT ?`,
      ).all(limit ?? -1).map(toSummary)
    );
  }

  /** Sessions whose id or short id equals or starts with `q` (already normalized). */
  matching(q: string): SessionSummary[] {
    return this.#guard(() =>
      this.#q(
        `SELECT ${SUMMARY_COLS} FROM sessions
         WHERE substr(id, 1, ?1) = ?2 OR substr(short_id, 1, ?1) = ?2
         ORDER BY updated_at DESC LIMIT 50`,
      ).all(q.length, q).map(toSummary)
    );
  }

  children(id: string): string[] {
    return this.#guard(() =>
      this.#q("SELECT id FROM sessions WHERE parent_id = ?").all(id).map((r) => r.id as string)
    );
  }

  search(query: string, limit = 20): SearchHit[] {
    const match = ftsQuery(query);
    if (!match) return [];
    return this.#guard(() =>
      this.#q(
        `SELECT m.session_id, s.short_id, s.title, m.message_id, m.role, s.updated_at,
                snippet(message_fts, 0, '[', ']', '…', 12) AS snippet
         FROM message_fts JOIN messages m ON m.seq = message_fts.rowid
         JOIN sessions s ON s.id = m.session_id
         WHERE message_fts MATCH ? ORDER BY rank LIMIT ?`,
      ).all(match, limit).map(toHit)
    );
  }

  fileChanges(sessionId: string): IndexedChange[] {
    return this.#guard(() =>
      this.#q(
        `SELECT session_id, message_id, path, before, after, at FROM file_changes
         WHERE session_id = ? ORDER BY ord`,
      ).all(sessionId).map(toChange)
    );
  }

  close(): void {
    try {
      this.#db.close();
    } catch {
      // already closed
    }
  }
}
