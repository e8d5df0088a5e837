/**
 * One configured server: connects (bounded by its start deadline), lists its tools (see
 * tool_listing.ts), calls them, and renews the connection when it dies. Every
 * (re)connect starts a new generation; callbacks of an older generation are ignored,
 * so a stale connection closing late can never mark the fresh one dead.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import {
  maxTotalMs,
  type McpServerConfig,
  startTimeoutMs,
  timeoutMs,
  transportKind,
} from "./config.ts";
import { createClient } from "./client_factory.ts";
import { closeQuietly, createTransport } from "./transports.ts";
import { StdioTransport } from "./stdio_transport.ts";
import {
  classifyFailure,
  errorText,
  explainStartFailure,
  isNoise,
  McpCallError,
  stderrHint,
  tagUndelivered,
} from "./errors.ts";
import type { CallResultLike } from "./result.ts";
import { finishedWithin } from "../util/wait.ts";
import { ANY_RESULT, type ListedTool, listTools, preview } from "./tool_listing.ts";
import { callToolAsTask } from "./task_call.ts";
import { type OAuthContext, OAuthSession } from "./oauth/session.ts";
import { isOAuthError } from "./oauth/errors.ts";
import { oauthMode } from "./oauth/settings.ts";

export interface ConnectionOptions {
  logDir: string;
  log: (line: string) => void;
  clientName: string;
  clientVersion: string;
  roots?: string[];
  redactLog?: (text: string) => string;
  /** OAuth for http/sse servers; absent: no tokens are stored or sent. */
  oauth?: OAuthContext;
}

export type ConnectionState = "idle" | "connected" | "failed" | "closed";

export class McpConnection {
  state: ConnectionState = "idle";
  error?: string;
  tools: ListedTool[] = [];
  instructions?: string;
  /** Set by `notifications/tools/list_changed` or a reconnect that saw other tools. */
  toolsChanged = false;
  /** Connected at least once: its tools stay offered while it is down, and calls retry. */
  wasConnected = false;

  #generation = 0;
  #client?: Client;
  #transport?: Transport;
  #alive = false;
  #reconnecting?: Promise<void>;
  #closing: Promise<void>[] = [];

  /** The server's OAuth, shared by every reconnect (tokens, step-up count). */
  readonly oauth?: OAuthSession;

  constructor(
    readonly name: string,
    readonly cfg: McpServerConfig,
    private readonly opts: ConnectionOptions,
  ) {
    const mode = oauthMode(cfg, transportKind(cfg));
    if (opts.oauth && mode !== "off") {
      this.oauth = new OAuthSession(name, cfg.url!, cfg, mode, opts.oauth);
    }
  }

  /** Whether the current connection is up (false once the server is seen to be gone). */
  get alive(): boolean {
    return this.#alive;
  }

  /** First connect; never throws: the outcome is in `state` and `error`. */
  async connect(): Promise<void> {
    try {
      await this.#open();
    } catch (err) {
      this.#fail(err);
    }
  }

  /** Calls a server tool; reconnects once when the connection is gone (see McpCallError). */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal) {
    let reconnected = false;
    if (!this.#alive) {
      await this.#renew(this.#generation, "was not connected");
      reconnected = true;
    }
    for (;;) {
      const gen = this.#generation;
      try {
        const asTask = this.tools.find((t) => t.name === tool)?.taskSupport === "required";
        // ANY_RESULT: an odd content block must not cost the whole result (see tool_listing.ts).
        const result = asTask
          ? await callToolAsTask(this.#client!, tool, args, {
            signal,
            timeoutMs: timeoutMs(this.cfg),
            maxTotalMs: maxTotalMs(this.cfg),
          })
          : await this.#client!.request(
            { method: "tools/call", params: { name: tool, arguments: args } },
            ANY_RESULT,
            {
              signal,
              timeout: timeoutMs(this.cfg),
              resetTimeoutOnProgress: true,
              maxTotalTimeout: maxTotalMs(this.cfg),
              // Asking for progress is what makes the server send it (and so extend the timeout).
              onprogress: () => {},
            },
          );
        if (typeof result !== "object" || result === null || Array.isArray(result)) {
          throw new McpCallError(
            "protocol",
            `MCP server "${this.name}" answered tools/call with something that is not a ` +
              `result object: ${preview(result)}`,
          );
        }
        return result as CallResultLike;
      } catch (err) {
        if (err instanceof McpCallError) throw err;
        if (isOAuthError(err)) throw new McpCallError("protocol", err.message);
        const lost = !this.#alive || gen !== this.#generation;
        const kind = classifyFailure(err, signal, lost);
        const detail = errorText(err);
        if (kind === "cancelled") throw new McpCallError(kind, "the call was cancelled");
        if (kind === "timeout") {
          throw new McpCallError(
            kind,
            `MCP server "${this.name}" did not answer within ${timeoutMs(this.cfg) / 1000}s ` +
              `(${detail}); the call was cancelled`,
          );
        }
        if (kind === "protocol") {
          throw new McpCallError(kind, `MCP server "${this.name}" returned an error: ${detail}`);
        }
        if (reconnected) {
          throw new McpCallError(kind, `MCP server "${this.name}" is unreachable: ${detail}`);
        }
        await this.#renew(gen, detail);
        reconnected = true;
        if (kind === "undelivered") continue;
        throw new McpCallError(
          kind,
          `the connection to MCP server "${this.name}" was lost during the call (${detail}); ` +
            "it has been reconnected, but the call was not repeated because it may have run",
        );
      }
    }
  }

  async ping(): Promise<void> {
    if (!this.#alive) await this.#renew(this.#generation, "was not connected");
    await this.#client!.ping({ timeout: timeoutMs(this.cfg) });
  }

  /** Re-lists the tools (after list_changed); true when they differ from before. */
  async relist(): Promise<boolean> {
    this.toolsChanged = false;
    if (!this.#alive || !this.#client) return false;
    const before = JSON.stringify(this.tools);
    this.tools = await this.#listTools(this.#client, timeoutMs(this.cfg));
    return JSON.stringify(this.tools) !== before;
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.#alive = false;
    this.#generation++;
    const transport = this.#transport;
    this.#transport = undefined;
    this.#client = undefined;
    await Promise.all([closeQuietly(transport), ...this.#closing]);
  }

  /** Replaces a dead connection of generation `failedGen`; concurrent callers share one attempt. */
  async #renew(failedGen: number, why: string): Promise<void> {
    if (this.state === "closed") throw new McpCallError("connection", "MCP client is closed");
    if (this.#reconnecting) return await this.#reconnecting;
    if (failedGen !== this.#generation && this.#alive) return;
    this.opts.log(`mcp ${this.name}: reconnecting (${why})`);
    const before = JSON.stringify(this.tools);
    this.#reconnecting = this.#open().then(
      () => {
        if (JSON.stringify(this.tools) !== before) this.toolsChanged = true;
      },
      (err) => {
        this.#fail(err);
        throw new McpCallError("connection", `MCP server "${this.name}" is down: ${this.error}`);
      },
    ).finally(() => this.#reconnecting = undefined);
    return await this.#reconnecting;
  }

  async #open(): Promise<void> {
    const gen = ++this.#generation;
    this.#alive = false;
    const old = this.#transport;
    if (old) this.#closing.push(closeQuietly(old));

    const transport = createTransport(this.name, this.cfg, {
      logDir: this.opts.logDir,
      redactLog: this.opts.redactLog,
      oauth: this.oauth,
    });
    tagUndelivered(transport);
    const client = createClient({
      name: this.opts.clientName,
      version: this.opts.clientVersion,
      roots: this.opts.roots,
      onToolsChanged: () => {
        if (gen === this.#generation) this.toolsChanged = true;
      },
      log: (line) => this.opts.log(`mcp ${this.name}: ${line}`),
    });
    client.onclose = () => {
      if (gen === this.#generation) this.#alive = false;
    };
    client.onerror = (err) => {
      // OAuth failures reach the caller with their own message; once is enough.
      if (gen === this.#generation && !isOAuthError(err) && !isNoise(err)) {
        this.opts.log(`mcp ${this.name}: ${errorText(err)}`);
      }
    };
    this.#transport = transport;
    this.#client = client;

    // One deadline for the whole start, its requests included: a server still starting
    // up must not fail on the per-call timeout of its first request.
    const ms = startTimeoutMs(this.cfg);
    const ready = (async () => {
      await client.connect(transport, { timeout: ms });
      return await this.#listTools(client, ms);
    })();
    const done = await finishedWithin(ready, ms).catch(async (err) => {
      if (transport instanceof StdioTransport) await transport.settle(500);
      throw new Error(explainStartFailure(err, transport));
    });
    if (!done) {
      ready.catch(() => {}); // settles once #fail closes the transport
      throw new Error(`did not become ready within ${ms / 1000}s${stderrHint(transport)}`);
    }
    const tools = await ready; // settled already: finishedWithin said so
    if (gen !== this.#generation) return; // closed or renewed meanwhile
    this.tools = tools;
    this.instructions = client.getInstructions();
    this.#alive = true;
    this.state = "connected";
    this.wasConnected = true;
    this.error = undefined;
  }

  #listTools(client: Client, timeoutMs: number): Promise<ListedTool[]> {
    const log = (line: string) => this.opts.log(`mcp ${this.name}: ${line}`);
    return listTools(client, this.cfg, log, timeoutMs);
  }

  #fail(err: unknown): void {
    this.state = "failed";
    this.#alive = false;
    this.error = errorText(err);
    const transport = this.#transport;
    this.#transport = undefined;
    if (transport) this.#closing.push(closeQuietly(transport));
  }
}
