/**
 * The session as the agent loop writes it. The JSONL file (DESIGN §6) is the
 * source of truth; the SQLite index is derived from it.
 */
import type { Usage } from "../domain/usage.ts";
import type { Message } from "../domain/message.ts";
import type { Denial } from "../domain/tool_records.ts";
import type { FileChange, TodoItem } from "../domain/tool_records.ts";

export const SESSION_FORMAT_VERSION = 1;

/** First line of a session file. */
export interface SessionHeader {
  type: "session";
  v: number;
  id: string;
  /** Short hash id shown to users. */
  short_id: string;
  parent_id?: string;
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

/** What the loop needs of a store. */
export interface SessionWriter {
  readonly id: string;
  /**
   * Records a message (a later save with the same id replaces it). Streaming
   * snapshots are debounced; `flush: true` writes at once (terminal events).
   */
  saveMessage(message: Message, opts?: { flush?: boolean }): Promise<void>;
  saveMeta(meta: Omit<SessionMeta, "type" | "at">): Promise<void>;
  recordChange(change: FileChange, messageId?: string): Promise<void>;
  /** Writes anything pending. */
  flush(): Promise<void>;
}
