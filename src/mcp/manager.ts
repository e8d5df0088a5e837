/**
 * All configured MCP servers of a run. `start()` connects them in parallel and
 * resolves when each is connected or has failed (each bounded by its start deadline), so a
 * headless run knows its tools before the first request. Tool lists that servers
 * change mid-run are applied between turns by `refresh()`, so the model's tool set
 * never shifts inside a turn.
 */
import type { Tool } from "../tools/types.ts";
import { ToolInfraError } from "../util/errors.ts";
import { interrupts } from "../util/interrupts.ts";
import { configProblem, type McpServerConfig } from "./config.ts";
import { McpConnection } from "./connection.ts";
import { assignToolNames } from "./naming.ts";
import { adaptTool } from "./tool_adapter.ts";
import { logPathFor } from "./transports.ts";
import type { OAuthContext } from "./oauth/session.ts";

/** How an MCP server came out of start-up, as the `init` event reports it. */
export interface McpServerStatus {
  name: string;
  status: "connected" | "failed" | "disabled";
  tools: number;
  error?: string;
}

export interface McpManagerOptions {
  /** Where `mcp-<name>.log` files (stdio servers' stderr) go. */
  logDir: string;
  log?: (line: string) => void;
  clientName?: string;
  clientVersion?: string;
  /** Absolute directories offered as roots; none → the roots capability is not declared. */
  roots?: string[];
  /** Applied to each line a stdio server writes to its log (keeps secrets out of logs). */
  redactLog?: (text: string) => string;
  /**
   * Ends start-up early: the servers started so far are closed and start() rejects with
   * the signal's reason. Default: the process's SIGINT/SIGTERM (util/interrupts.ts).
   */
  signal?: AbortSignal;
  /** OAuth for http/sse servers (token folder, login); absent: none. */
  oauth?: Omit<OAuthContext, "log">;
}

export interface McpManager {
  start(): Promise<McpServerStatus[]>;
  statuses(): McpServerStatus[];
  /** Throws ToolInfraError when a `required` server is not connected. */
  assertRequired(): void;
  tools(): Tool[];
  instructions(): Array<{ server: string; text: string }>;
  /** Applies tool-list changes announced since the last call; true when the tools changed. */
  refresh(): Promise<boolean>;
  /** The connection of one server, for `mopac mcp ping|call`. */
  connection(server: string): McpConnection | undefined;
  close(): Promise<void>;
}

interface Entry {
  name: string;
  cfg: McpServerConfig;
  conn?: McpConnection;
  /** Set when the config itself rules the server out. */
  problem?: string;
}

export function createMcpManager(
  servers: Record<string, McpServerConfig>,
  opts: McpManagerOptions,
): McpManager {
  const log = opts.log ?? (() => {});
  const entries: Entry[] = Object.entries(servers).map(([name, cfg]) => {
    if (cfg.disabled) return { name, cfg };
    const problem = configProblem(cfg);
    if (problem) return { name, cfg, problem };
    const conn = new McpConnection(name, cfg, {
      logDir: opts.logDir,
      log,
      clientName: opts.clientName ?? "mopac",
      clientVersion: opts.clientVersion ?? "0.0.0",
      roots: opts.roots,
      redactLog: opts.redactLog,
      oauth: opts.oauth && { ...opts.oauth, log },
    });
    return { name, cfg, conn };
  });
  let toolList: Tool[] = [];
  let started: Promise<McpServerStatus[]> | undefined;

  const statusOf = (e: Entry): McpServerStatus => {
    if (!e.conn && !e.problem) return { name: e.name, status: "disabled", tools: 0 };
    if (!e.conn) return { name: e.name, status: "failed", tools: 0, error: e.problem };
    const c = e.conn;
    if (c.state === "connected") {
      return { name: e.name, status: "connected", tools: c.tools.length };
    }
    return { name: e.name, status: "failed", tools: 0, error: c.error ?? "not started" };
  };

  const rebuild = (): boolean => {
    // A server that went down after connecting keeps its tools: each call tries to
    // reconnect once and otherwise returns a tool error saying the server is down.
    const live = entries.filter((e) => e.conn?.state === "connected" || e.conn?.wasConnected);
    const pairs = live.flatMap((e) => e.conn!.tools.map((t) => ({ server: e.name, tool: t.name })));
    const names = assignToolNames(pairs);
    const next: Tool[] = [];
    let i = 0;
    for (const e of live) {
      for (const t of e.conn!.tools) next.push(adaptTool(names[i++].name, e.conn!, t));
    }
    const signature = (ts: Tool[]) =>
      JSON.stringify(ts.map((t) => [t.name, t.description, t.parameters]));
    const changed = signature(next) !== signature(toolList);
    toolList = next;
    return changed;
  };

  const closeAll = async () => {
    await Promise.all(entries.map((e) => e.conn?.close()));
    toolList = [];
  };

  return {
    start() {
      started ??= (async () => {
        const signal = opts.signal ?? interrupts.signal;
        const stopped = await finishedUnless(
          Promise.all(entries.map((e) => e.conn?.connect())),
          signal,
        );
        if (stopped) {
          // Start-up can take each server's whole start deadline: the servers started so far
          // are closed before mopac goes, so none is left running.
          await closeAll();
          throw signal.reason;
        }
        for (const e of entries) {
          const s = statusOf(e);
          if (s.status === "failed") log(`mcp ${e.name}: failed to start: ${s.error}`);
        }
        rebuild();
        return entries.map(statusOf);
      })();
      return started;
    },

    statuses: () => entries.map(statusOf),

    assertRequired() {
      for (const e of entries) {
        if (!e.cfg.required) continue;
        const s = statusOf(e);
        if (s.status === "connected") continue;
        const why = s.status === "disabled" ? "it is disabled in the config" : s.error;
        throw new ToolInfraError(`required MCP server "${e.name}" is not available: ${why}`, {
          hint: `see ${logPathFor(opts.logDir, e.name)} or run \`mopac mcp ping ${e.name}\``,
        });
      }
    },

    tools: () => toolList,

    instructions() {
      return entries.flatMap((e) => {
        const text = e.conn?.state === "connected" ? e.conn.instructions?.trim() : undefined;
        return text ? [{ server: e.name, text }] : [];
      });
    },

    async refresh() {
      await Promise.all(entries.map(async (e) => {
        if (!e.conn?.toolsChanged) return;
        try {
          await e.conn.relist();
        } catch (err) {
          log(`mcp ${e.name}: re-listing tools failed: ${(err as Error).message}`);
        }
      }));
      return rebuild();
    },

    connection: (server) => entries.find((e) => e.name === server)?.conn,

    close: closeAll,
  };
}

/** Waits for `work`; true when `signal` aborted first (or already had). */
function finishedUnless(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  let onAbort: () => void = () => {};
  const aborted = new Promise<boolean>((resolve) => {
    onAbort = () => resolve(true);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work.then(() => false), aborted]).finally(() => {
    signal.removeEventListener("abort", onAbort);
  });
}
