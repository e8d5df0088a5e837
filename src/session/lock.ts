/**
 * One writer per session: `sessions/<uuid>.lock`, created atomically, holding the
 * owner as JSON ({pid, host, started_at}). Whether the owner still lives is decided
 * by an OS file lock (flock) the owner holds on that file for as long as it runs: the
 * kernel drops it when the process dies, even by SIGKILL, and checking it needs no
 * Deno permission beyond the data dir (pid probes need --allow-run or /proc access,
 * which narrow sandboxes do not grant). The owner JSON names the pid in the error and
 * covers the one case flock cannot: an owner on another host of a network file system.
 */
import { SessionBusyError } from "../util/errors.ts";

export interface LockOwner {
  pid: number;
  host?: string;
  started_at: number;
}

/** An owner on another host is presumed alive for this long (we cannot see its processes). */
export const FOREIGN_LOCK_TTL_MS = 24 * 60 * 60 * 1000;

/** This machine's name, or undefined when `--allow-sys=hostname` is not granted. */
export function hostName(): string | undefined {
  try {
    return Deno.hostname();
  } catch {
    return undefined;
  }
}

/**
 * Whether a pid is alive on this host: true, false, or undefined when we may not ask
 * (a pid probe needs --allow-run or read access to /proc).
 */
export function pidAlive(pid: number): boolean | undefined {
  try {
    // Deno's `process` global loads Node's process layer at its first use (~25 ms,
    // measured); an import of node:process would load it on every start, and only a
    // lock left by another process is ever probed.
    globalThis.process.kill(pid, 0);
    return true;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ESRCH") return false;
    if (code === "EPERM") return true; // exists, owned by someone else
  }
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
  }
  return undefined;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text);
    if (typeof o?.pid !== "number" || typeof o?.started_at !== "number") return undefined;
    return {
      pid: o.pid,
      host: typeof o.host === "string" ? o.host : undefined,
      started_at: o.started_at,
    };
  } catch {
    return undefined;
  }
}

export function readOwner(path: string): LockOwner | undefined {
  try {
    return parseOwner(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}

/** An owner we must respect even though we got the file lock: another host, not yet stale. */
function foreignAndFresh(owner: LockOwner | undefined, now: number): boolean {
  const here = hostName();
  if (!owner?.host || !here || owner.host === here) return false;
  return now - owner.started_at < FOREIGN_LOCK_TTL_MS;
}

function busy(shortId: string, owner: LockOwner | undefined): SessionBusyError {
  const who = owner
    ? `pid ${owner.pid}${owner.host ? ` on ${owner.host}` : ""}`
    : "another process";
  return new SessionBusyError(`session ${shortId} in use by ${who}`, {
    hint: "wait for that run to finish, or continue another session",
  });
}

function sameFile(file: Deno.FsFile, path: string): boolean {
  try {
    const a = file.statSync();
    const b = Deno.statSync(path);
    return a.ino === null || (a.ino === b.ino && a.dev === b.dev);
  } catch {
    return false; // removed under us
  }
}

export class SessionLock {
  #file: Deno.FsFile | undefined;
  readonly path: string;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /** Takes the lock or throws SessionBusyError; a dead owner's lock is taken over. */
  static acquire(path: string, shortId: string, now: number = Date.now()): SessionLock {
    for (let attempt = 0; attempt < 5; attempt++) {
      let file: Deno.FsFile;
      let created = false;
      try {
        file = Deno.openSync(path, { read: true, write: true, createNew: true });
        created = true;
      } catch (err) {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
        try {
          file = Deno.openSync(path, { read: true, write: true });
        } catch (err2) {
          if (err2 instanceof Deno.errors.NotFound) continue; // released meanwhile: retry
          throw err2;
        }
      }
      if (!tryLock(file, path, now)) {
        const owner = readOwner(path);
        file.close();
        throw busy(shortId, owner);
      }
      // The owner may have removed the file between our open and our lock: that inode is
      // gone, and holding a lock on it means nothing.
      if (!sameFile(file, path)) {
        file.close();
        continue;
      }
      if (!created) {
        const owner = readOwner(path);
        if (foreignAndFresh(owner, now)) {
          file.close();
          throw busy(shortId, owner);
        }
      }
      const owner: LockOwner = { pid: Deno.pid, host: hostName(), started_at: now };
      file.truncateSync(0);
      const bytes = new TextEncoder().encode(JSON.stringify(owner) + "\n");
      let done = 0;
      while (done < bytes.length) done += file.writeSync(bytes.subarray(done));
      return new SessionLock(path, file);
    }
    throw busy(shortId, readOwner(path));
  }

  /** Removes the lock file, then drops the file lock. Idempotent and synchronous (exit paths). */
  release(): void {
    const file = this.#file;
    if (!file) return;
    this.#file = undefined;
    try {
      Deno.removeSync(this.path);
    } catch {
      // already gone, or not removable: the dropped file lock still frees the session
    }
    try {
      file.close();
    } catch {
      // already closed
    }
  }
}

/**
 * The OS lock, without blocking. Where the file system has no flock, fall back to the
 * owner JSON: a live pid on this host (or one we cannot probe, younger than a day) wins.
 */
function tryLock(file: Deno.FsFile, path: string, now: number): boolean {
  try {
    return file.tryLockSync(true);
  } catch {
    const owner = readOwner(path);
    if (!owner || owner.pid === Deno.pid) return true;
    const alive = owner.host && owner.host !== hostName() ? undefined : pidAlive(owner.pid);
    if (alive === undefined) return now - owner.started_at >= FOREIGN_LOCK_TTL_MS;
    return !alive;
  }
}
