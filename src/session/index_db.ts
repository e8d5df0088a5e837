/**
 * The connection to `index.db`: opening it in WAL mode, the schema and its version,
 * write transactions that survive other processes (SQLITE_BUSY), and what to do when
 * the file is damaged (delete it: the JSONL files rebuild it). Nothing here is the
 * source of truth, so every failure mode ends in "rebuild", never in lost sessions.
 *
 * node:sqlite binds a JS number as REAL. The tables are not STRICT on purpose: INTEGER
 * affinity turns 42.0 back into the integer 42.
 */
import { DatabaseSync } from "node:sqlite";

const INDEX_SCHEMA_VERSION = 2;
/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;
const BUSY_RETRIES = 4;

const TABLES = ["sessions", "messages", "message_fts", "file_changes"];

const SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  short_id TEXT NOT NULL,
  parent_id TEXT,
  title TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  message_count INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  cwd TEXT NOT NULL,
  model TEXT,
  status TEXT,
  exit_code INTEGER,
  file_size INTEGER NOT NULL
);
CREATE INDEX sessions_updated ON sessions(updated_at);
CREATE INDEX sessions_short ON sessions(short_id);
CREATE INDEX sessions_parent ON sessions(parent_id);
CREATE TABLE messages (
  seq INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, message_id)
);
CREATE VIRTUAL TABLE message_fts USING fts5(
  text, session_id UNINDEXED, message_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE file_changes (
  seq INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  ord INTEGER NOT NULL,
  message_id TEXT,
  path TEXT NOT NULL,
  before TEXT,
  after TEXT,
  at INTEGER NOT NULL,
  UNIQUE (session_id, ord)
);
CREATE INDEX file_changes_path ON file_changes(path);
`;

function sqliteCode(err: unknown): number | undefined {
  return (err as { errcode?: number } | null)?.errcode;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Another connection holds the lock (node:sqlite does not always set errcode). */
export function isBusy(err: unknown): boolean {
  const code = sqliteCode(err);
  if (code !== undefined && [5, 6].includes(code & 0xff)) return true;
  return /database (table )?is locked|SQLITE_BUSY/i.test(message(err));
}

/** The file is not a database, or a damaged one. */
export function isCorrupt(err: unknown): boolean {
  const code = sqliteCode(err);
  if (code !== undefined && [11, 26].includes(code & 0xff)) return true;
  return /malformed|not a database|corrupt|integrity check failed/i.test(message(err));
}

/**
 * Opens (creating or recreating as needed) the index. A file that is not a database or
 * has another schema version is replaced; `warn` says why. Damage deeper inside is
 * found when a statement trips over it, or by `quickCheck` on reindex: a quick_check
 * on every open would cost more than the whole `sessions list` budget.
 */
export function openIndexDb(path: string, warn: (msg: string) => void): DatabaseSync {
  for (let attempt = 0;; attempt++) {
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path);
      const conn = db;
      conn.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // Never fsync: the index is derived from the session files (losing it loses
      // nothing), and what a killed process wrote is in the OS's hands either way. With
      // NORMAL every run paid two fsyncs at exit (the WAL's checkpoint), and the first
      // run in a data dir four more (switching a new file to WAL): set before that.
      conn.exec("PRAGMA synchronous = OFF");
      retryBusy(() => conn.exec("PRAGMA journal_mode = WAL"));
      const version = userVersion(conn);
      if (version === INDEX_SCHEMA_VERSION) {
        // Reading the schema finds a damaged first page or schema table.
        conn.prepare("SELECT count(*) FROM sqlite_schema").get();
        return conn;
      }
      if (version !== 0) {
        warn(
          `index ${path} has schema version ${version}, expected ${INDEX_SCHEMA_VERSION}; rebuilding it`,
        );
      }
      createSchema(conn);
      return conn;
    } catch (err) {
      db?.close();
      if (attempt > 0 || !isCorrupt(err)) throw err;
      warn(`index ${path} is damaged (${message(err)}); rebuilding it from the session files`);
      removeDbFiles(path);
    }
  }
}

/** SQLite's quick_check: undefined when fine, else what it found. */
export function quickCheck(db: DatabaseSync): string | undefined {
  try {
    const rows = db.prepare("PRAGMA quick_check(5)").all() as Array<{ quick_check: string }>;
    const found = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
    return found.length > 0 ? found.join("; ") : undefined;
  } catch (err) {
    return message(err);
  }
}

function userVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

/** Creates the tables unless another process did it first. */
function createSchema(db: DatabaseSync): void {
  writeTx(db, () => {
    // Checked again inside the write lock: a concurrent opener may have just done it.
    if (userVersion(db) === INDEX_SCHEMA_VERSION) return;
    for (const t of TABLES) db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.exec(SCHEMA);
    db.exec(`PRAGMA user_version = ${INDEX_SCHEMA_VERSION}`);
  });
}

export function removeDbFiles(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      Deno.removeSync(p);
    } catch {
      // not there
    }
  }
}

function retryBusy<T>(fn: () => T): T {
  for (let attempt = 0;; attempt++) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || attempt >= BUSY_RETRIES) throw err;
    }
  }
}

/**
 * Runs `fn` in a write transaction. BEGIN IMMEDIATE takes the write lock up front (a
 * deferred transaction that upgrades later can fail with SQLITE_BUSY without waiting);
 * busy_timeout makes it wait, and a BUSY that still comes back is retried.
 */
export function writeTx<T>(db: DatabaseSync, fn: () => T, retries = BUSY_RETRIES): T {
  for (let attempt = 0;; attempt++) {
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      if (isBusy(err) && attempt < retries) continue;
      throw err;
    }
    try {
      const result = fn();
      db.exec("COMMIT");
      return result;
    } catch (err) {
      try {
        db.exec("ROLLBACK");
      } catch {
        // no transaction left to roll back
      }
      if (isBusy(err) && attempt < retries) continue;
      throw err;
    }
  }
}
