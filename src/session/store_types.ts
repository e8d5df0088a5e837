/**
 * What the rest of mopac sees of the session store: the store (one per data dir),
 * a handle per open session (the loop's SessionWriter plus load and close), and the
 * summaries the index keeps.
 */
import type { Message } from "../domain/message.ts";
import type { Denial } from "../domain/tool_records.ts";
import type { FileChangeRecord, SessionHeader, SessionMeta, SessionWriter } from "./types.ts";

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
}

export interface SessionHandle extends SessionWriter {
  readonly header: SessionHeader;
  /** The session as written so far (a copy: changing it changes nothing stored). */
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
  /** Where warnings go (malformed lines, index rebuilds); default: dropped. */
  warn?: (msg: string) => void;
  /** Streaming snapshot debounce; default 50 ms. */
  debounceMs?: number;
  /** Clock for record times (tests); default Date.now. */
  now?: () => number;
}
