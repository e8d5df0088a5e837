/** Row shapes of `index.db` and their mapping to the store's types. */
import type { Message } from "../domain/message.ts";
import type { FileChangeRecord, SearchHit, SessionSummary } from "./types.ts";

export type Row = Record<string, unknown>;

/** What to write for one session: its row, and the messages and changes to (re)index. */
export interface SessionChanges {
  summary: SessionSummary;
  /** Size of the JSONL file these rows reflect. */
  fileSize: number;
  messages: Iterable<Message>;
  /**
   * File changes not yet indexed, and the position of the first one among all the
   * session's changes: rows are keyed by position, so indexing one twice (a writer and
   * a catch-up racing) keeps one row.
   */
  changes: FileChangeRecord[];
  changesOffset: number;
}

export interface IndexedChange {
  session_id: string;
  message_id?: string;
  path: string;
  before: string | null;
  after: string | null;
  at: number;
}

export const SUMMARY_COLS =
  "id, short_id, parent_id, title, created_at, updated_at, message_count, input_tokens, " +
  "output_tokens, cached_input_tokens, cost_usd, cwd, model, status, exit_code";

export function toSummary(r: Row): SessionSummary {
  const s: SessionSummary = {
    id: r.id as string,
    short_id: r.short_id as string,
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
    message_count: r.message_count as number,
    input_tokens: r.input_tokens as number,
    output_tokens: r.output_tokens as number,
    cached_input_tokens: r.cached_input_tokens as number,
    cost_usd: r.cost_usd as number,
    cwd: r.cwd as string,
  };
  if (r.parent_id != null) s.parent_id = r.parent_id as string;
  if (r.title != null) s.title = r.title as string;
  if (r.model != null) s.model = r.model as string;
  if (r.status != null) s.status = r.status as string;
  if (r.exit_code != null) s.exit_code = r.exit_code as number;
  return s;
}

export function toHit(r: Row): SearchHit {
  const hit: SearchHit = {
    session_id: r.session_id as string,
    short_id: r.short_id as string,
    message_id: r.message_id as string,
    role: r.role as string,
    snippet: r.snippet as string,
    updated_at: r.updated_at as number,
  };
  if (r.title != null) hit.title = r.title as string;
  return hit;
}

export function toChange(r: Row): IndexedChange {
  const c: IndexedChange = {
    session_id: r.session_id as string,
    path: r.path as string,
    before: r.before as string | null,
    after: r.after as string | null,
    at: r.at as number,
  };
  if (r.message_id != null) c.message_id = r.message_id as string;
  return c;
}

/** User words as an FTS5 query: each one quoted (no syntax errors), matched as a prefix. */
export function ftsQuery(query: string): string | undefined {
  const words = query.match(/[\p{L}\p{N}_]+/gu);
  if (!words) return undefined;
  return words.map((w) => `"${w}"*`).join(" ");
}
