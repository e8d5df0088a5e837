/**
 * The session store of one data dir: `sessions/<uuid>.jsonl` (the truth), a lock file
 * per session being written, and `index.db` (derived; rebuilt whenever it is missing,
 * damaged, of another schema version, or behind the files).
 */
import { join } from "node:path";
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
import { idTaken, normalizeIdInput, notFound, pickSession, shortIdOf } from "./ids.ts";
import { SessionLock } from "./lock.ts";
import { JsonlFile } from "./jsonl_writer.ts";
import { type ReadResult, readSessionFile } from "./reader.ts";
import { newSession, type SessionState } from "./state.ts";
import { SessionIndex } from "./session_index.ts";
import { checkedHeader, fileRows, reconcile } from "./reconcile.ts";
import { type HandleSettings, handleSettings, SessionHandleImpl } from "./handle.ts";
import { attempt, writable } from "./failures.ts";
import { ensureDataDir } from "../util/data_dir.ts";

const INDEX_FILE = "index.db";
const SESSIONS_DIR = "sessions";

export class DiskSessionStore implements SessionStore {
  readonly ephemeral = false;
  readonly dataDir: string;
  readonly sessionsDir: string;
  readonly #index: SessionIndex;
  readonly #settings: HandleSettings;
  readonly #open = new Map<string, SessionHandleImpl>();

  private constructor(dataDir: string, index: SessionIndex, opts: StoreOptions) {
    this.dataDir = dataDir;
    this.sessionsDir = join(dataDir, SESSIONS_DIR);
    this.#index = index;
    this.#settings = handleSettings(opts);
  }

  static async open(dataDir: string, opts: StoreOptions = {}): Promise<DiskSessionStore> {
    // The same file may be read twice (index catch-up, then open): say each thing once.
    const said = new Set<string>();
    const userWarn = opts.warn;
    const warn = (msg: string) => {
      if (said.has(msg)) return;
      said.add(msg);
      userWarn?.(msg);
    };
    opts = { ...opts, warn };
    try {
      // A data dir made here gets its .gitignore; then the sessions folder inside it.
      await ensureDataDir(dataDir);
      await Deno.mkdir(join(dataDir, SESSIONS_DIR), { recursive: true });
    } catch (err) {
      writable(join(dataDir, SESSIONS_DIR), () => {
        throw err;
      });
    }
    let index: SessionIndex;
    try {
      index = new SessionIndex(join(dataDir, INDEX_FILE), warn);
    } catch (err) {
      // Sessions must keep working without the index: rebuild one in memory.
      warn(`cannot open ${join(dataDir, INDEX_FILE)} (${err}); using an in-memory index`);
      index = new SessionIndex(":memory:", warn);
    }
    const store = new DiskSessionStore(dataDir, index, opts);
    index.onRebuilt = () => store.#reconcile(true);
    try {
      store.#reconcile(false);
    } catch (err) {
      // The index is derived data: a busy or broken one must not stop a run.
      warn(`index catch-up skipped (${err}); \`mopac sessions reindex\` rebuilds it`);
    }
    return store;
  }

  /** The index (tests and diagnostics). */
  get index(): SessionIndex {
    return this.#index;
  }

  #path(id: string, ext: "jsonl" | "lock"): string {
    return join(this.sessionsDir, `${id}.${ext}`);
  }

  #reconcile(force: boolean): number {
    return reconcile({
      sessionsDir: this.sessionsDir,
      index: this.#index,
      warn: this.#settings.warn,
      force,
      openHere: new Set(this.#open.keys()),
    });
  }

  #handle(
    header: SessionHeader,
    state: SessionState,
    file: JsonlFile,
    lock: SessionLock,
    indexNow: boolean,
  ) {
    const handle = new SessionHandleImpl({
      ...this.#settings,
      header,
      state,
      file,
      lock,
      index: this.#index,
      onClose: (h) => this.#open.delete(h.id),
    }, indexNow);
    this.#open.set(header.id, handle);
    return handle;
  }

  create(opts: CreateSessionOptions): Promise<SessionHandle> {
    return attempt(() => {
      const now = this.#settings.now();
      const { header, state } = newSession(opts, now);
      const id = header.id;
      // A chosen id names a new session: one that exists is refused, not continued.
      if (opts.id !== undefined && exists(this.#path(id, "jsonl"))) throw idTaken(id);
      // Lock before the file exists, so nobody sees the file without its lock.
      const lockPath = this.#path(id, "lock");
      const lock = writable(lockPath, () => SessionLock.acquire(lockPath, header.short_id, now));
      let file: JsonlFile;
      try {
        const path = this.#path(id, "jsonl");
        file = writable(path, () => JsonlFile.create(path, header));
      } catch (err) {
        lock.release();
        if (err instanceof Deno.errors.AlreadyExists) throw idTaken(id);
        throw err;
      }
      return this.#handle(header, state, file, lock, true);
    });
  }

  /** The file of a session the index knows; gone since is "not found" for what the user typed. */
  async #readFile(
    id: string,
    idOrPrefix: string,
  ): Promise<{ r: ReadResult; header: SessionHeader }> {
    try {
      const r = await readSessionFile(this.#path(id, "jsonl"), this.#settings.warn);
      return { r, header: checkedHeader(id, r) };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) throw notFound(idOrPrefix);
      throw err;
    }
  }

  async open(idOrPrefix: string): Promise<SessionHandle> {
    const summary = this.resolve(idOrPrefix);
    const lockPath = this.#path(summary.id, "lock");
    const lock = writable(lockPath, () => SessionLock.acquire(lockPath, summary.short_id));
    try {
      const { r, header } = await this.#readFile(summary.id, idOrPrefix);
      // Rows behind the file (a crash between file and index write): replace them now.
      if (this.#index.fileSize(summary.id) !== r.size) {
        try {
          this.#index.write(() => this.#index.replace(fileRows(header, r)));
        } catch (err) {
          this.#settings.warn(
            `could not bring the index up to date for ${summary.short_id}: ${err}`,
          );
        }
      }
      const path = this.#path(summary.id, "jsonl");
      const file = writable(path, () => JsonlFile.openAppend(path, r.size, r.endsClean));
      return this.#handle(header, r.state, file, lock, false);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  async read(idOrPrefix: string): Promise<LoadedSession> {
    const summary = this.resolve(idOrPrefix);
    const open = this.#open.get(summary.id);
    if (open) return await open.load();
    const { r, header } = await this.#readFile(summary.id, idOrPrefix);
    return r.state.snapshot(header);
  }

  latestTopLevel(): Promise<SessionSummary | undefined> {
    return Promise.resolve(this.#index.list(1, false)[0]);
  }

  list(opts: ListOptions = {}): SessionSummary[] {
    return this.#index.list(opts.limit, opts.includeChildren ?? false);
  }

  resolve(idOrPrefix: string): SessionSummary {
    const q = normalizeIdInput(idOrPrefix);
    if (!q) throw notFound(idOrPrefix);
    let candidates = this.#index.matching(q);
    if (candidates.length === 0) {
      // Maybe created by another process after this store opened.
      this.#reconcile(false);
      candidates = this.#index.matching(q);
    }
    return pickSession(idOrPrefix, candidates);
  }

  remove(idOrPrefix: string): Promise<void> {
    return attempt(() => {
      const root = this.resolve(idOrPrefix);
      const ids = [root.id];
      for (let i = 0; i < ids.length; i++) ids.push(...this.#index.children(ids[i]));
      const locks: SessionLock[] = [];
      try {
        // A session open here or elsewhere holds its lock: acquiring refuses it.
        for (const id of ids) {
          const lockPath = this.#path(id, "lock");
          locks.push(writable(lockPath, () => SessionLock.acquire(lockPath, shortIdOf(id))));
        }
        for (const id of ids) {
          try {
            const path = this.#path(id, "jsonl");
            writable(path, () => Deno.removeSync(path));
          } catch (err) {
            if (!(err instanceof Deno.errors.NotFound)) throw err;
          }
        }
        this.#index.write(() => ids.forEach((id) => this.#index.delete(id)));
      } finally {
        for (const l of locks) l.release();
      }
    });
  }

  search(query: string, limit?: number): SearchHit[] {
    return this.#index.search(query, limit);
  }

  reindex(): Promise<number> {
    return attempt(() => {
      this.#index.check(); // a damaged file is replaced (and refilled) first
      return this.#reconcile(true);
    });
  }

  close(): void {
    for (const h of [...this.#open.values()]) h.closeSync();
    this.#index.close();
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
