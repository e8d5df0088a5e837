/**
 * Where a server's OAuth state lives between runs: one JSON file per server under the
 * user's data dir (never the project's, which the model can read), created 0600 in a
 * 0700 folder and replaced atomically. Read-modify-write happens under an OS file
 * lock on a sibling `.lock` file, so two runs never both spend a refresh token: the
 * second one waits, then finds the first one's new tokens.
 */
import { join } from "node:path";
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth";

export interface StoredTokens extends OAuthTokens {
  /** Milliseconds since the epoch; absent when the server gave no lifetime. */
  expires_at?: number;
}

export interface StoredOAuth {
  /** The server URL the state belongs to; a file for another URL is not used. */
  url: string;
  /** A dynamically registered client (pre-registered ones stay in config). */
  client?: OAuthClientInformationMixed;
  tokens?: StoredTokens;
  discovery?: OAuthDiscoveryState;
  /** Scopes a run was refused for; the next `mopac mcp login` asks for them. */
  pending_scope?: string;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes)].slice(0, 8).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

export class TokenStore {
  private constructor(readonly path: string, readonly url: string) {}

  /** The store of server `name` at `url`, in `dir` (one file per name and URL). */
  static async open(dir: string, name: string, url: string): Promise<TokenStore> {
    const safe = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
    return new TokenStore(join(dir, `${safe}-${await digest(url)}.json`), url);
  }

  /** What is stored, or undefined: nothing yet, unreadable, another URL's, or corrupt. */
  async read(): Promise<StoredOAuth | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
    try {
      const data = JSON.parse(text) as StoredOAuth;
      return data && typeof data === "object" && data.url === this.url ? data : undefined;
    } catch {
      return undefined; // a torn or hand-edited file is as good as none
    }
  }

  /** Replaces the file at once: a reader sees the old whole file or the new one. */
  async write(data: StoredOAuth): Promise<void> {
    const dir = join(this.path, "..");
    await Deno.mkdir(dir, { recursive: true, mode: DIR_MODE });
    const tmp = `${this.path}.${crypto.randomUUID()}.tmp`;
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: FILE_MODE });
    try {
      await file.write(new TextEncoder().encode(JSON.stringify({ ...data, url: this.url })));
      await file.syncData();
    } finally {
      file.close();
    }
    try {
      // The mode given at creation is filtered by the umask; this makes it exact.
      if (Deno.build.os !== "windows") await Deno.chmod(tmp, FILE_MODE);
      await Deno.rename(tmp, this.path);
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      throw err;
    }
  }

  /** Read, change and write under the lock; `change` returns undefined to delete the file. */
  async update(
    change: (
      data: StoredOAuth | undefined,
    ) => StoredOAuth | undefined | Promise<StoredOAuth | undefined>,
    onWait?: () => void,
  ): Promise<StoredOAuth | undefined> {
    return await this.withLock(async () => {
      const next = await change(await this.read());
      if (next) await this.write(next);
      else await Deno.remove(this.path).catch(() => {});
      return next;
    }, onWait);
  }

  /**
   * Runs `fn` holding the exclusive lock of this server's state. `onWait` is called
   * once when another process holds it (so a run can say why it pauses).
   */
  async withLock<T>(fn: () => Promise<T>, onWait?: () => void): Promise<T> {
    const dir = join(this.path, "..");
    await Deno.mkdir(dir, { recursive: true, mode: DIR_MODE });
    const file = await Deno.open(`${this.path}.lock`, {
      read: true,
      write: true,
      create: true,
      mode: FILE_MODE,
    });
    try {
      if (!(await file.tryLock(true))) {
        onWait?.();
        await file.lock(true);
      }
      return await fn();
    } finally {
      // Closing drops the lock; the file stays (removing it would race a waiter).
      file.close();
    }
  }

  async remove(): Promise<boolean> {
    return await this.withLock(async () => {
      try {
        await Deno.remove(this.path);
        return true;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return false;
        throw err;
      }
    });
  }
}
