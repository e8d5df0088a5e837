/**
 * The session: its records as the JSONL file holds them (DESIGN §6, the source of
 * truth; the SQLite index is derived from it), what the agent loop writes through
 * (SessionWriter), and what the rest of mopac sees of the store (one per data dir),
 * of an open session (SessionHandle) and of the index (summaries, search hits).
 */
import type { Usage } from "../domain/usage.ts";
import type { Message } from "../domain/message.ts";
import type { Denial, FileChange, TodoItem } from "../domain/tool_records.ts";

export const SESSION_FORMAT_VERSION = 1;

/** First line of a session file. */
export interface SessionHeader {
  type: "session";
  v: number;
  id: string;
  /** Short hash id shown to users. */
  short_id: string;
  parent_id?: string;
  /** Set on a fork (`--fork`): the id of the session whose history it copied. */
  forked_from?: string;
  created_at: number;
  cwd: string;
  title?: string;
}

/** Session-level facts recorded along the way (a later meta record updates earlier ones). */
export interface SessionMeta {
  type: "meta";
  at: number;
  title?: string;
  model?: string;
  summary_message_id?: string;
  todos?: TodoItem[];
  /** path → mtime of the last view. */
  viewed?: Record<string, number>;
  shell?: { cwd: string; env: Record<string, string> };
  usage?: Usage;
  cost_usd?: number;
  denial?: Denial;
  /**
   * What shaped the last run's prompts besides its user message: `-f FILE`, and the
   * system prompt flags (`--system-prompt-file`'s file and text, `--append-system-prompt`).
   * Written by a run that used one, and by every resumed run (empty when it used none).
   */
  run_inputs?: {
    prompt_file?: string;
    system_prompt?: { file?: string; text?: string; appended?: string };
  };
  /** The last run on this session: when it started, and once it ended, how (`sessions list`). */
  last_run?: LastRun;
}

/** A run's ending as its `result` says it: the subtype and the exit code. */
export interface LastRun {
  started_at: number;
  ended_at?: number;
  subtype?: string;
  exit_code?: number;
}

export interface MessageRecord {
  type: "message";
  message: Message;
}

export interface FileChangeRecord {
  type: "file_change";
  at: number;
  message_id?: string;
  change: FileChange;
}

export type SessionRecord = SessionHeader | SessionMeta | MessageRecord | FileChangeRecord;

/** A message the store follows while it streams (SessionWriter.liveMessage). */
export interface LiveMessage {
  /** It changed: a snapshot is due within the debounce. Costs nothing more per call. */
  changed(): void;
}

/**
 * What the loop needs of a store: where one session's records go. Contract: every
 * method may reject (a disk that refuses the write, or a file removed since it was
 * opened, is a StorageError naming the file); records are appended in call order.
 */
export interface SessionWriter {
  readonly id: string;
  /**
   * Records a message (a later save with the same id replaces it). Streaming
   * snapshots are debounced; `flush: true` writes at once (terminal events).
   */
  saveMessage(message: Message, opts?: { flush?: boolean }): Promise<void>;
  /**
   * Follows a message while it streams, for crash recovery: snapshots are taken on the
   * debounce by calling `read` at that moment, never once per change. The next
   * saveMessage of the same id ends it.
   */
  liveMessage(id: string, read: () => Message): LiveMessage;
  saveMeta(meta: Omit<SessionMeta, "type" | "at">): Promise<void>;
  recordChange(change: FileChange, messageId?: string): Promise<void>;
  /** Writes anything pending. */
  flush(): Promise<void>;
}

/** One row of the session list (from the index; derived from the JSONL file). */
export interface SessionSummary {
  id: string;
  short_id: string;
  parent_id?: string;
  title?: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  /** Totals over the session's messages (latest version of each). */
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number;
  cwd: string;
  /** The model of the last assistant message, else the meta model. */
  model?: string;
  /**
   * How the last run ended (its result subtype), or "unfinished" when it started and
   * never said (killed, or running now); absent when no run recorded it.
   */
  status?: string;
  /** The exit code of the last run, once it ended. */
  exit_code?: number;
}

export interface SearchHit {
  session_id: string;
  short_id: string;
  title?: string;
  message_id: string;
  role: string;
  /** The matching text with the hits in [brackets]. */
  snippet: string;
  updated_at: number;
}

/** Every meta record folded into one (later fields win). */
export type MergedMeta = Omit<SessionMeta, "type" | "at" | "denial"> & { at?: number };

/** A session as read from its file. */
export interface LoadedSession {
  header: SessionHeader;
  /** The latest version of each message, in the order each was first written. */
  messages: Message[];
  meta: MergedMeta;
  changes: FileChangeRecord[];
  /** Every denial recorded in meta records, in order. */
  denials: Denial[];
  /** The model of the last assistant message (what resume restores unless `-m`). */
  last_model?: string;
  /** Newest time any record carries. */
  updated_at: number;
}

export interface CreateSessionOptions {
  cwd: string;
  parent_id?: string;
  title?: string;
  /** The new session's id (`--session-id`); creating fails when it exists. Default: a new UUIDv7. */
  id?: string;
  /** The session this one was forked from (`--fork`). */
  forked_from?: string;
}

export interface SessionHandle extends SessionWriter {
  readonly header: SessionHeader;
  /**
   * The session as written so far: changing its arrays, meta or changes changes nothing
   * stored; its messages are the stored ones, never to be changed in place.
   */
  load(): Promise<LoadedSession>;
  /** Writes what is pending, updates the index and releases the lock. */
  close(): Promise<void>;
  /** Same as close() without awaiting anything: for exit and signal handlers. */
  closeSync(): void;
}

export interface ListOptions {
  limit?: number;
  /** Include sub-agent sessions (those with a parent). Default false. */
  includeChildren?: boolean;
}

/**
 * The sessions of one data dir (`openSessionStore`, mod.ts): `<data dir>/sessions/
 * <uuid>.jsonl` files, the source of truth, and `index.db`, a SQLite index rebuilt
 * from them whenever it is missing, damaged or behind.
 *
 * Contract: one writer per session. `create` and `open` lock the session for this
 * process (a SessionBusyError while another live process holds it) and hand out a
 * SessionHandle, which the agent loop writes through; `close` on the handle writes
 * what is pending and releases the lock. `read`, `list` and `search` never lock.
 * Ids are full uuids, short ids or unique prefixes of either; one that matches
 * nothing or several sessions is a UsageError (exit 2). An interrupted session is
 * always readable and resumable: a torn last line is skipped.
 *
 * @example An in-memory store (`--ephemeral`) has the same interface and writes nothing
 * ```ts
 * import { openSessionStore } from "./mod.ts";
 *
 * const store = await openSessionStore("/nonexistent", { ephemeral: true });
 * const session = await store.create({ cwd: "/work" });
 * await session.saveMessage({
 *   id: "m1",
 *   role: "user",
 *   parts: [{ type: "text", text: "fix the build" }],
 *   created_at: 0,
 *   updated_at: 0,
 * }, { flush: true });
 * const loaded = await session.load();
 * if (loaded.messages.length !== 1) throw new Error("the message is stored");
 * await session.close();
 * store.close();
 * ```
 */
export interface SessionStore {
  /** True for `--ephemeral`: nothing is read from or written to disk. */
  readonly ephemeral: boolean;
  /** A new session, locked for this process. */
  create(opts: CreateSessionOptions): Promise<SessionHandle>;
  /** Resolves `-s` input (full id, short id or unique prefix) and locks the session. */
  open(idOrPrefix: string): Promise<SessionHandle>;
  /** Reads a session without locking it (show, export). */
  read(idOrPrefix: string): Promise<LoadedSession>;
  /** The most recently updated top-level session (`-C`); sub-agent sessions never. */
  latestTopLevel(): Promise<SessionSummary | undefined>;
  /** Newest first. */
  list(opts?: ListOptions): SessionSummary[];
  /** Throws UsageError when nothing or more than one session matches. */
  resolve(idOrPrefix: string): SessionSummary;
  /** Deletes a session and its sub-agent sessions (refused while one is in use). */
  remove(idOrPrefix: string): Promise<void>;
  search(query: string, limit?: number): SearchHit[];
  /** Rebuilds the index from the JSONL files; returns the number of sessions indexed. */
  reindex(): Promise<number>;
  /** Closes open handles (writing what is pending, releasing locks) and the index. */
  close(): void;
}

export interface StoreOptions {
  ephemeral?: boolean;
  /**
   * Only look (the `sessions` commands): a data dir without a sessions folder is read
   * as an empty store, and nothing is created on disk.
   */
  existingOnly?: boolean;
  /** Where warnings go (malformed lines, index rebuilds); default: dropped. */
  warn?: (msg: string) => void;
  /** Streaming snapshot debounce; default 50 ms. */
  debounceMs?: number;
  /** Clock for record times (tests); default Date.now. */
  now?: () => number;
}
