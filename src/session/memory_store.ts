/**
 * `--ephemeral`: the same store interface with everything in memory. Nothing is read
 * from or written to disk; sessions vanish with the process. Handles are the disk
 * handles without file, lock and index, so writing behaves the same (validation,
 * debounce, replace-by-id).
 */
import type {
  CreateSessionOptions,
  ListOptions,
  LoadedSession,
  SearchHit,
  SessionHandle,
  SessionHeader,
  SessionStore,
  SessionSummary,
  StoreOptions,
} from "./types.ts";
import { SessionBusyError } from "../util/errors.ts";
import { newSession, searchableText, type SessionState } from "./state.ts";
import { type HandleSettings, handleSettings, SessionHandleImpl } from "./handle.ts";
import { attempt } from "./failures.ts";
import { idTaken, pickSession } from "./ids.ts";

interface Entry {
  header: SessionHeader;
  state: SessionState;
  handle?: SessionHandleImpl;
}

export class MemorySessionStore implements SessionStore {
  readonly ephemeral = true;
  readonly #sessions = new Map<string, Entry>();
  readonly #settings: HandleSettings;

  constructor(opts: StoreOptions = {}) {
    this.#settings = handleSettings(opts);
  }

  #attach(entry: Entry): SessionHandle {
    assertFree(entry);
    entry.handle = new SessionHandleImpl({
      ...this.#settings,
      header: entry.header,
      state: entry.state,
      onClose: () => (entry.handle = undefined),
    }, false);
    return entry.handle;
  }

  create(opts: CreateSessionOptions): Promise<SessionHandle> {
    if (opts.id !== undefined && this.#sessions.has(opts.id)) {
      return Promise.reject(idTaken(opts.id));
    }
    const entry: Entry = newSession(opts, this.#settings.now());
    this.#sessions.set(entry.header.id, entry);
    return Promise.resolve(this.#attach(entry));
  }

  open(idOrPrefix: string): Promise<SessionHandle> {
    return attempt(() => this.#attach(this.#entry(idOrPrefix)));
  }

  async read(idOrPrefix: string): Promise<LoadedSession> {
    const entry = this.#entry(idOrPrefix);
    return entry.handle ? await entry.handle.load() : entry.state.snapshot(entry.header);
  }

  #entry(idOrPrefix: string): Entry {
    return this.#sessions.get(this.resolve(idOrPrefix).id)!;
  }

  #summaries(): SessionSummary[] {
    return [...this.#sessions.values()].map((e) => e.state.summary(e.header))
      .sort((a, b) => b.updated_at - a.updated_at || (a.id < b.id ? 1 : -1));
  }

  latestTopLevel(): Promise<SessionSummary | undefined> {
    return Promise.resolve(this.list({ limit: 1 })[0]);
  }

  list(opts: ListOptions = {}): SessionSummary[] {
    const all = this.#summaries().filter((s) => opts.includeChildren || !s.parent_id);
    return opts.limit === undefined ? all : all.slice(0, opts.limit);
  }

  resolve(idOrPrefix: string): SessionSummary {
    return pickSession(idOrPrefix, this.#summaries());
  }

  remove(idOrPrefix: string): Promise<void> {
    return attempt(() => {
      const ids = [this.resolve(idOrPrefix).id];
      for (let i = 0; i < ids.length; i++) {
        for (const e of this.#sessions.values()) {
          if (e.header.parent_id === ids[i]) ids.push(e.header.id);
        }
      }
      for (const id of ids) assertFree(this.#sessions.get(id)!);
      for (const id of ids) this.#sessions.delete(id);
    });
  }

  /** Case-insensitive: every word of the query appears in the message text. */
  search(query: string, limit = 20): SearchHit[] {
    const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) return [];
    const hits: SearchHit[] = [];
    for (const s of this.#summaries()) {
      for (const m of this.#sessions.get(s.id)!.state.messages.values()) {
        const text = searchableText(m);
        const lower = text.toLowerCase();
        if (!words.every((w) => lower.includes(w))) continue;
        const at = lower.indexOf(words[0] ?? "");
        const hit: SearchHit = {
          session_id: s.id,
          short_id: s.short_id,
          message_id: m.id,
          role: m.role,
          snippet: text.slice(Math.max(0, at - 40), at + 80),
          updated_at: s.updated_at,
        };
        if (s.title !== undefined) hit.title = s.title;
        hits.push(hit);
        if (hits.length >= limit) return hits;
      }
    }
    return hits;
  }

  reindex(): Promise<number> {
    return Promise.resolve(this.#sessions.size);
  }

  close(): void {
    for (const e of this.#sessions.values()) e.handle?.closeSync();
  }
}

/** One handle per session, as the disk store's lock allows. */
function assertFree(entry: Entry): void {
  if (entry.handle) {
    throw new SessionBusyError(`session ${entry.header.short_id} in use by pid ${Deno.pid}`);
  }
}
