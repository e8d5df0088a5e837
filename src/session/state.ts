/**
 * The fold of a session's records into its current state: the latest version of each
 * message (kept at the position it was first seen), merged meta, file changes and
 * denials. The reader, the writer and the ephemeral store all use this one fold, so a
 * session looks the same whether it was just written or read back.
 */
import type { Message, TextPart } from "../domain/message.ts";
import type { Denial } from "../domain/tool_records.ts";
import {
  type CreateSessionOptions,
  type FileChangeRecord,
  type LastRun,
  type LoadedSession,
  type MergedMeta,
  SESSION_FORMAT_VERSION,
  type SessionHeader,
  type SessionRecord,
  type SessionSummary,
} from "./types.ts";
import { newSessionId, shortIdOf } from "./ids.ts";

/** A new session (a fresh time-ordered id unless one is given): its header and state. */
export function newSession(
  opts: CreateSessionOptions,
  now: number,
): { header: SessionHeader; state: SessionState } {
  const id = opts.id ?? newSessionId(now);
  const header: SessionHeader = {
    type: "session",
    v: SESSION_FORMAT_VERSION,
    id,
    short_id: shortIdOf(id),
    created_at: now,
    cwd: opts.cwd,
  };
  if (opts.parent_id !== undefined) header.parent_id = opts.parent_id;
  if (opts.forked_from !== undefined) header.forked_from = opts.forked_from;
  if (opts.title !== undefined) header.title = opts.title;
  const state = new SessionState();
  state.apply(header);
  return { header, state };
}

export class SessionState {
  header?: SessionHeader;
  /** Map keeps insertion order, and `set` on an existing key keeps its place. */
  readonly messages = new Map<string, Message>();
  meta: MergedMeta = {};
  readonly changes: FileChangeRecord[] = [];
  readonly denials: Denial[] = [];
  updatedAt = 0;

  apply(record: SessionRecord): void {
    switch (record.type) {
      case "session":
        // A duplicated header line later in the file changes nothing.
        if (!this.header) this.header = record;
        this.touch(record.created_at);
        return;
      case "message":
        this.messages.set(record.message.id, record.message);
        this.touch(record.message.updated_at);
        return;
      case "meta": {
        const { type: _type, denial, ...fields } = record;
        if (denial) this.denials.push(denial);
        this.meta = { ...this.meta, ...fields };
        this.touch(record.at);
        return;
      }
      case "file_change":
        this.changes.push(record);
        this.touch(record.at);
        return;
    }
  }

  private touch(at: number): void {
    if (at > this.updatedAt) this.updatedAt = at;
  }

  lastModel(): string | undefined {
    let last: string | undefined;
    for (const m of this.messages.values()) if (m.role === "assistant" && m.model) last = m.model;
    return last;
  }

  /**
   * The session for a caller: its own arrays and copies of everything but the
   * messages, which are shared. A message is a record of what was said: nothing
   * changes one in place (a later save of the same id replaces it), and copying ten
   * thousand of them took 52 of a resume's ~190 ms. `header` is the session's
   * (checked) header.
   */
  snapshot(header: SessionHeader): LoadedSession {
    return {
      ...structuredClone({
        header,
        meta: this.meta,
        changes: this.changes,
        denials: this.denials,
      }),
      messages: [...this.messages.values()],
      last_model: this.lastModel(),
      updated_at: Math.max(this.updatedAt, header.created_at),
    };
  }

  /**
   * The index row of this session. Totals are sums over the messages (the loop's meta
   * usage counts one run only, and a resumed session has several).
   */
  summary(h: SessionHeader): SessionSummary {
    let input = 0, output = 0, cached = 0, cost = 0;
    for (const m of this.messages.values()) {
      if (m.usage) {
        input += m.usage.input_tokens;
        output += m.usage.output_tokens;
        cached += m.usage.cached_input_tokens;
      }
      cost += m.cost_usd ?? 0;
    }
    return {
      id: h.id,
      short_id: h.short_id,
      parent_id: h.parent_id,
      title: this.meta.title ?? h.title,
      created_at: h.created_at,
      updated_at: Math.max(this.updatedAt, h.created_at),
      message_count: this.messages.size,
      input_tokens: input,
      output_tokens: output,
      cached_input_tokens: cached,
      cost_usd: cost,
      cwd: h.cwd,
      model: this.lastModel() ?? this.meta.model,
      ...lastRunStatus(this.meta.last_run),
    };
  }
}

/** The searchable text of a message: its text parts (user and assistant only). */
export function searchableText(m: Message): string {
  if (m.role !== "user" && m.role !== "assistant") return "";
  return m.parts.filter((p): p is TextPart => p.type === "text").map((p) => p.text).join("\n");
}

/**
 * The messages to continue from: after summarizing, the conversation restarts at the
 * summary message (the file keeps everything before it).
 */
export function activeHistory(loaded: LoadedSession): Message[] {
  const id = loaded.meta.summary_message_id;
  const at = id ? loaded.messages.findIndex((m) => m.id === id) : -1;
  return at >= 0 ? loaded.messages.slice(at) : loaded.messages;
}

function lastRunStatus(run: LastRun | undefined): Pick<SessionSummary, "status" | "exit_code"> {
  if (!run) return {};
  if (run.ended_at === undefined || run.subtype === undefined) return { status: "unfinished" };
  return {
    status: run.subtype,
    ...(run.exit_code !== undefined ? { exit_code: run.exit_code } : {}),
  };
}
