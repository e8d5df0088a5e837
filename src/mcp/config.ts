/**
 * One MCP server's configuration, as the config loader hands it over (crush's block
 * verbatim plus mopac's `required`; `$VAR`/`$(cmd)` already expanded), and the few
 * derived values every other MCP module needs: the transport kind and the time limits.
 */

import type { McpOAuthConfig } from "./oauth/settings.ts";

export type McpTransportKind = "stdio" | "sse" | "http";

/** With the OAuth keys of http/sse servers (oauth/settings.ts). */
export interface McpServerConfig extends McpOAuthConfig {
  type?: McpTransportKind;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Names of mopac's own environment variables passed on (stdio); the rest is a clean base. */
  env_vars?: string[];
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  enabled_tools?: string[];
  disabled_tools?: string[];
  /** Seconds; bounds each request (a call, a ping, a re-listing) without progress. Default 10. */
  timeout?: number;
  /**
   * Seconds; bounds starting the server: spawn or connect, initialize and the first
   * tools/list (a reconnect too). Default: the larger of 30 and `timeout`.
   */
  start_timeout?: number;
  /** A failure to start ends the run (exit 6). */
  required?: boolean;
  /** Run in the OS jail (true: no network); the app rewrites `command` to the jail's. */
  sandbox?: boolean | { network?: "none" | "all" | { hosts: string[] } };
  /** Set by the app for jailed servers: `env` is the whole environment, nothing inherited. */
  clear_env?: boolean;
}

export const DEFAULT_TIMEOUT_S = 10;
/**
 * A start includes the server's own start-up (an `npx` or `deno run` that loads a
 * package graph, a JVM): slower than a call, and slower still on a loaded CI runner.
 */
export const DEFAULT_START_TIMEOUT_S = 30;

/**
 * Progress notifications extend a call's timeout, but never beyond this many times
 * the server's timeout (and at least MIN_TOTAL_MS), so a server that keeps reporting
 * progress forever still ends.
 */
const TOTAL_FACTOR = 30;
const MIN_TOTAL_MS = 5 * 60_000;

/** crush infers the kind when `type` is left out: a command means stdio, a URL means http. */
export function transportKind(cfg: McpServerConfig): McpTransportKind {
  if (cfg.type) return cfg.type;
  return cfg.command === undefined && cfg.url !== undefined ? "http" : "stdio";
}

export function timeoutMs(cfg: McpServerConfig): number {
  const s = cfg.timeout;
  return (typeof s === "number" && Number.isFinite(s) && s > 0 ? s : DEFAULT_TIMEOUT_S) * 1000;
}

/** The start deadline (see `start_timeout`); never shorter than the per-request timeout. */
export function startTimeoutMs(cfg: McpServerConfig): number {
  const s = cfg.start_timeout;
  if (typeof s === "number" && Number.isFinite(s) && s > 0) return s * 1000;
  return Math.max(DEFAULT_START_TIMEOUT_S * 1000, timeoutMs(cfg));
}

export function maxTotalMs(cfg: McpServerConfig): number {
  // Capped at what a timer can wait (2^31-1 ms): a longer one would fire at once.
  return Math.min(Math.max(timeoutMs(cfg) * TOTAL_FACTOR, MIN_TOTAL_MS), 2 ** 31 - 1);
}

/** Why this config cannot be started, or undefined when it can (checked before any spawn). */
export function configProblem(cfg: McpServerConfig): string | undefined {
  const kind = transportKind(cfg);
  if (kind === "stdio") {
    if (!cfg.command || cfg.command.trim() === "") return "stdio server has no `command`";
    return undefined;
  }
  if (!cfg.url) return `${kind} server has no \`url\``;
  let url: URL;
  try {
    url = new URL(cfg.url);
  } catch {
    return `invalid url ${JSON.stringify(cfg.url)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `url must be http(s), got ${JSON.stringify(url.protocol)}`;
  }
  return undefined;
}

/** Whether a server tool passes the `enabled_tools` / `disabled_tools` filters. */
export function toolAllowed(cfg: McpServerConfig, tool: string): boolean {
  if (cfg.enabled_tools && cfg.enabled_tools.length > 0 && !cfg.enabled_tools.includes(tool)) {
    return false;
  }
  return !(cfg.disabled_tools ?? []).includes(tool);
}
