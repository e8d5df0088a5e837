/**
 * OAuth for one http/sse server, as a fetch wrapper the SDK transports use. It adds
 * the bearer token, refreshes it before it expires (under the store's lock, so two
 * runs never both spend the refresh token), and answers challenges: a 401 is met
 * with a refresh, a machine grant or, only during `mopac mcp login`, the interactive
 * authorization-code flow; a 403 `insufficient_scope` (step-up) with a new token for
 * the wider scope, at most twice, and never for a scope the token already has.
 * Headless runs never start an interactive flow: they fail naming `mopac mcp login`
 * and remember the scope a step-up asked for, which the next login then requests.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport";
import { type McpOAuthConfig, type OAuthMode, scopeSet, scopeString } from "./settings.ts";
import { type StoredTokens, TokenStore } from "./store.ts";
import { expired } from "./tokens.ts";
import { OAuthFailed, OAuthLoginRequired } from "./errors.ts";
import { authorizeInteractively, type InteractiveLogin } from "./authorize.ts";
import { refreshStored } from "./refresh.ts";
import { obtainMachineToken } from "./machine.ts";
import { type Challenge, oauthFetch } from "./fetch.ts";

export type { Challenge, InteractiveLogin };

export interface OAuthContext {
  /** Folder of the token files (the user's data dir, never the project's). */
  dir: string;
  clientName: string;
  log(line: string): void;
  /** Every token obtained or loaded, so the run can keep it out of what it writes. */
  onSecret?(value: string): void;
  /** Only `mopac mcp login` sets this: the browser part of the authorization-code flow. */
  interactive?: InteractiveLogin;
}

/** Step-ups (403 insufficient_scope) answered per server and process. */
const MAX_STEP_UPS = 2;

export class OAuthSession {
  #tokens?: StoredTokens;
  #loading?: Promise<void>;
  /** `mopac mcp login` is under way: the stored token is not used. */
  #loginStarted = false;
  #store?: Promise<TokenStore>;
  #stepUps = 0;
  /** The store's folder exists but Deno's permissions do not let mopac read it. */
  #hidden = false;
  #queue: Promise<unknown> = Promise.resolve();
  /** Every token this session held: a server that echoes one must not hand it to the model. */
  #secrets = new Set<string>();

  constructor(
    readonly server: string,
    readonly url: string,
    readonly cfg: McpOAuthConfig,
    readonly mode: Exclude<OAuthMode, "off">,
    readonly ctx: OAuthContext,
  ) {}

  /** Only the authorization-code flow keeps anything on disk; machine tokens live in memory. */
  store(): Promise<TokenStore> {
    if (!this.ctx.dir) {
      return Promise.reject(
        new OAuthFailed(this.server, "no folder for OAuth logins: set HOME or XDG_DATA_HOME"),
      );
    }
    return this.#store ??= TokenStore.open(this.ctx.dir, this.server, this.url);
  }

  /** The scope the current token was granted (or asked) for. */
  get grantedScope(): string | undefined {
    return this.#tokens?.scope;
  }

  get hasToken(): boolean {
    return this.#tokens !== undefined;
  }

  /** The transport's fetch with OAuth around it (fetch.ts). */
  wrap(next: FetchLike): FetchLike {
    return oauthFetch(this, next);
  }

  /** The token to send now (refreshed first when it is about to expire). */
  token(): Promise<string | undefined> {
    return this.#token();
  }

  /** A new token after the server's challenge to a request that carried `used`. */
  answer(challenge: Challenge, used: string | undefined): Promise<string> {
    return challenge.status === 401
      ? this.#serial(() => this.#recover(challenge, used))
      : this.#serial(() => this.#stepUp(challenge));
  }

  /**
   * Starts `mopac mcp login`: the stored token is not used (it stays on disk until a new
   * one replaces it, so a failed login loses nothing), and when an earlier run was
   * refused for scope, the authorization starts at once (the server would not ask for
   * that scope before the call).
   */
  async beginLogin(): Promise<void> {
    const data = await (await this.store()).read();
    this.#tokens = undefined;
    this.#loginStarted = true;
    if (data?.pending_scope) await this.#authorize({ status: 401 });
  }

  /** Runs one recovery at a time: concurrent 401s must not log in or refresh twice. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Reads the stored login once; concurrent first requests share the read. */
  #load(): Promise<void> {
    if (this.mode !== "authorization_code" || !this.ctx.dir) return Promise.resolve();
    return this.#loading ??= this.#readStored().then((tokens) => {
      // A login may have begun (or a token been obtained) while the file was read.
      if (!this.#loginStarted && !this.#tokens) this.#adopt(tokens);
    });
  }

  /**
   * The stored tokens; none when Deno's sandbox hides the folder (then only a server
   * that asks for a login notices, and its message names the flags).
   */
  async #readStored(): Promise<StoredTokens | undefined> {
    try {
      return (await (await this.store()).read())?.tokens;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotCapable)) throw err;
      this.#hidden = true;
      return undefined;
    }
  }

  #adopt(tokens: StoredTokens | undefined): string | undefined {
    this.#tokens = tokens;
    for (const secret of [tokens?.access_token, tokens?.refresh_token]) {
      if (!secret || this.#secrets.has(secret)) continue;
      this.#secrets.add(secret);
      this.ctx.onSecret?.(secret);
    }
    return tokens?.access_token;
  }

  /** `text` with every token of this server replaced (for tool results of this server). */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.replaceAll(secret, "[REDACTED]");
    return out;
  }

  /** The token to send now: refreshed first when it is about to expire. */
  async #token(): Promise<string | undefined> {
    await this.#load();
    const tokens = this.#tokens;
    if (!tokens || !expired(tokens)) return tokens?.access_token;
    if (this.mode !== "authorization_code") {
      return await this.#serial(() => this.#obtain({ status: 401 }));
    }
    if (!tokens.refresh_token) return tokens.access_token; // the server will say it is stale
    return await this.#serial(() => this.#refresh(tokens.access_token));
  }

  async #recover(challenge: Challenge, used: string | undefined): Promise<string> {
    const current = this.#tokens?.access_token;
    if (current && current !== used) return current; // another request recovered already
    if (this.mode !== "authorization_code") return await this.#obtain(challenge);
    // A login authorizes afresh, whatever is stored.
    if (this.ctx.interactive) return await this.#authorize(challenge);
    // Another process may have logged in or refreshed meanwhile.
    const stored = await this.#readStored();
    if (stored && stored.access_token !== used && !expired(stored)) {
      return this.#adopt(stored)!;
    }
    if (used && stored?.refresh_token) return await this.#refresh(used);
    const dir = this.ctx.dir;
    const hidden = this.#hidden
      ? ` (Deno's permissions hide the stored logins: add --allow-read=${dir} --allow-write=${dir})`
      : "";
    throw new OAuthLoginRequired(
      this.server,
      (used ? "refused the stored login (HTTP 401)" : "needs a login") + hidden,
    );
  }

  async #stepUp(challenge: Challenge): Promise<string> {
    const granted = scopeSet(this.#tokens?.scope);
    const wanted = scopeSet(challenge.scope);
    const missing = [...wanted].filter((s) => !granted.has(s));
    if (missing.length === 0) {
      throw new OAuthFailed(
        this.server,
        `the server refuses the token for scope "${challenge.scope ?? ""}", which it already ` +
          "has; another login would not help",
      );
    }
    const scope = scopeString(new Set([...granted, ...wanted]));
    if (this.mode === "authorization_code" && !this.ctx.interactive) {
      // Only a login can widen a user's grant: the next one asks for this scope.
      const store = await this.store();
      await store.update((d) => ({ ...(d ?? { url: this.url }), pending_scope: scope }));
      throw new OAuthLoginRequired(this.server, `needs more permission (scope "${scope}")`);
    }
    if (++this.#stepUps > MAX_STEP_UPS) {
      throw new OAuthFailed(
        this.server,
        `the server keeps asking for more scope (now "${challenge.scope}"); gave up after ` +
          `${MAX_STEP_UPS} step-ups`,
      );
    }
    if (this.mode !== "authorization_code") return await this.#obtain({ ...challenge, scope });
    return await this.#authorize({ ...challenge, scope });
  }

  async #refresh(used: string): Promise<string> {
    const store = await this.store();
    const tokens = await refreshStored(store, {
      server: this.server,
      used,
      cfg: this.cfg,
      log: this.ctx.log,
    });
    return this.#adopt(tokens)!;
  }

  async #authorize(challenge: Challenge): Promise<string> {
    const tokens = await authorizeInteractively(await this.store(), {
      server: this.server,
      url: this.url,
      cfg: this.cfg,
      clientName: this.ctx.clientName,
      challenge,
      interactive: this.ctx.interactive!,
      log: this.ctx.log,
    });
    return this.#adopt(tokens)!;
  }

  /** client_credentials or cross-app access: a fresh token, kept in memory only. */
  async #obtain(challenge: Challenge): Promise<string> {
    const tokens = await obtainMachineToken({
      server: this.server,
      url: this.url,
      cfg: this.cfg,
      mode: this.mode as Exclude<OAuthMode, "off" | "authorization_code">,
      clientName: this.ctx.clientName,
      challenge,
    });
    this.ctx.log(`mcp ${this.server}: OAuth token obtained (${this.mode})`);
    return this.#adopt(tokens)!;
  }
}
