/**
 * The tools of a run: built-in tools, MCP servers (started only when the profile
 * can use them), the gate, and the runner every call goes through.
 */
import { resolve } from "node:path";
import { type Config, logsDir, oauthTokenDir } from "../config/mod.ts";
import { readEnv } from "../util/env.ts";
import type { McpManager, McpManagerOptions, McpServerStatus } from "../mcp/manager.ts";
import { builtinTools } from "../tools/registry.ts";
import { createToolRunner, type ToolRunner } from "../agent/tool_runner.ts";
import type { AgentRunner } from "../tools/agent.ts";
import type { ToolContext } from "../tools/types.ts";
import { createGate } from "../permission/gate.ts";
import type { Profile } from "../permission/profiles.ts";
import { type Redactor, summarizeInput } from "../secrets/redactor.ts";
import { baseEnv } from "../tools/shell/env.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import { VERSION } from "../util/version.ts";
import type { ShellLauncher } from "../jail/mod.ts";
import { ensureDataDir } from "../util/data_dir.ts";

export interface Tooling {
  /** The one path of every tool call; it offers what the gate allows. */
  runner: ToolRunner;
  /** The MCP servers this run started, if any. */
  mcp?: McpManager;
  mcpStatuses: McpServerStatus[];
  /** Ends background jobs and the MCP servers this run started; never throws. */
  close(): Promise<void>;
}

export interface ToolingOptions {
  config: Config;
  profile: Profile;
  workspace: string;
  dataDir: string;
  context: Omit<ToolContext, "signal">;
  redactor: Redactor;
  runAgent?: AgentRunner;
  warn: (line: string) => void;
  /** Start the MCP servers the profile can use (the run), or none (sub-agents). */
  mcp: boolean;
  /** Where bash runs: the run's OS jail (owned and disposed by the run). */
  launcher?: ShellLauncher;
  /** Rewrites MCP servers marked `sandbox` to start in the OS jail. */
  jailServers?: (
    servers: Record<string, McpServerConfig>,
  ) => Promise<Record<string, McpServerConfig>>;
  /** Stops MCP start-up early (SIGINT/SIGTERM); default: the process's. */
  signal?: AbortSignal;
}

/**
 * How MCP servers are started, the same for a run and for `mopac mcp …`: stderr logs
 * in the data dir with every secret redacted, mopac's client name and version, and
 * roots only when `options.mcp_roots` lists folders.
 */
export function mcpManagerOptions(
  config: Config,
  paths: { dataDir: string; workspace: string },
  redactor: Redactor,
  warn: (line: string) => void,
): McpManagerOptions {
  return {
    logDir: logsDir(paths.dataDir),
    log: warn,
    clientName: "mopac",
    clientVersion: VERSION,
    redactLog: (text) => redactor.redact(text),
    roots: config.options?.mcp_roots?.map((p) => resolve(paths.workspace, p)),
    // Logins live in the user's data dir; tokens join the secrets as they are loaded or obtained.
    oauth: {
      dir: oauthTokenDir(readEnv) ?? "",
      clientName: "mopac",
      onSecret: (value) => redactor.add(value),
    },
  };
}

/** MCP servers the profile could use; the others are not started at all. */
export function serversFor(config: Config, profile: Profile): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, cfg] of Object.entries(config.mcp ?? {})) {
    if (cfg.disabled) continue;
    if (profile.mcp === "all" || profile.mcp[name] !== undefined) out[name] = cfg;
  }
  return out;
}

/**
 * The `fetch.hosts` entries every profile of the chain lists (a sub-agent reaches a
 * private address only when its parent may too).
 */
function addressHosts(profile: Profile): string[] {
  const lists: Array<readonly string[]> = [];
  for (let p: Profile | undefined = profile; p; p = p.within) lists.push(p.fetchHosts ?? []);
  return lists[0].filter((h) => lists.every((l) => l.includes(h)));
}

export async function buildTooling(opts: ToolingOptions): Promise<Tooling> {
  const { config, profile } = opts;
  const builtins = builtinTools(config.tools ?? {}, {
    runAgent: opts.runAgent,
    launcher: opts.launcher,
    fetchHosts: addressHosts(profile),
  });
  let mcp: McpManager | undefined;
  let mcpStatuses: McpServerStatus[] = [];
  if (opts.mcp) {
    const chosen = serversFor(config, profile);
    const servers = opts.jailServers ? await opts.jailServers(chosen) : chosen;
    if (Object.keys(servers).length > 0) {
      // Loaded only when a server is configured: the MCP SDK (with ajv) costs a run
      // without servers tens of milliseconds and megabytes for nothing.
      const { createMcpManager } = await import("../mcp/manager.ts");
      // Server logs go to <data dir>/logs; a data dir made for them gets its .gitignore.
      // When it cannot be made, each server's log says so and the run goes on.
      await ensureDataDir(opts.dataDir).catch(() => {});
      mcp = createMcpManager(servers, {
        ...mcpManagerOptions(config, opts, opts.redactor, opts.warn),
        signal: opts.signal,
      });
      try {
        // The manager itself warns about each server that failed to start (through `warn`).
        mcpStatuses = await mcp.start();
        mcp.assertRequired();
      } catch (err) {
        await Promise.allSettled([mcp.close(), builtins.dispose()]);
        throw err;
      }
    }
  }
  const all = () => [...builtins.tools, ...(mcp?.tools() ?? [])];
  const gate = createGate({
    profile,
    workspace: opts.workspace,
    hooks: config.hooks?.PreToolUse,
    hookEnv: baseEnv({ config: config.env ?? {} }),
    sessionId: opts.context.session_id,
    log: opts.warn,
  });
  const runner = createToolRunner({
    tools: all,
    gate,
    context: { ...opts.context, paths: gate.paths },
    summarize: (input) => summarizeInput(input, (s) => opts.redactor.redact(s)),
    redact: opts.redactor.size > 0 ? (s) => opts.redactor.redact(s) : undefined,
  });
  return {
    runner,
    mcp,
    mcpStatuses,
    close: async () => {
      await Promise.allSettled([builtins.dispose(), mcp?.close()]);
    },
  };
}
