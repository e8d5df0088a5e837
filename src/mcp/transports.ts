/**
 * Builds the transport for one server from its config: our own stdio transport, the
 * SDK's Streamable HTTP transport, or its legacy SSE transport (both with the
 * configured headers on every request, the SSE stream included).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { type McpServerConfig, transportKind } from "./config.ts";
import { StdioTransport } from "./stdio_transport.ts";
import { finishedWithin } from "../util/wait.ts";
import { serverEnv } from "./server_env.ts";
import type { OAuthSession } from "./oauth/session.ts";

const TERMINATE_MS = 1_000;

export interface TransportOptions {
  logDir: string;
  redactLog?: (text: string) => string;
  /** Adds tokens to the server's requests and answers its challenges (http/sse only). */
  oauth?: OAuthSession;
}

export function logPathFor(logDir: string, server: string): string {
  return `${logDir.replace(/\/+$/, "")}/mcp-${server.replace(/[^A-Za-z0-9_.-]/g, "_")}.log`;
}

export function createTransport(
  server: string,
  cfg: McpServerConfig,
  opts: TransportOptions,
): Transport {
  const kind = transportKind(cfg);
  if (kind === "stdio") {
    return new StdioTransport({
      command: cfg.command!,
      args: cfg.args,
      // A jailed server's env was built whole by the jail (from serverEnv too).
      env: cfg.clear_env ? cfg.env ?? {} : serverEnv(cfg),
      logPath: logPathFor(opts.logDir, server),
      redactLog: opts.redactLog,
    });
  }
  const url = new URL(cfg.url!);
  const requestInit: RequestInit = { headers: { ...(cfg.headers ?? {}) } };
  const fetch = opts.oauth ? opts.oauth.wrap(bufferedErrors) : bufferedErrors;
  if (kind === "sse") return new SSEClientTransport(url, { requestInit, fetch });
  return new StreamableHTTPClientTransport(url, { requestInit, fetch });
}

/**
 * Reads the body of an error response at once. The SSE client (the `eventsource`
 * package) drops error responses unread, which leaks the connection's body stream.
 */
async function bufferedErrors(input: string | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (res.ok || !res.body) return res;
  const body = await res.arrayBuffer();
  return new Response(body, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/** A close that can never hang the caller: an HTTP server that is gone must not stall shutdown. */
export async function closeQuietly(transport: Transport | undefined): Promise<void> {
  if (!transport) return;
  try {
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      // Tell the server the session is over (it may answer 405, which is fine).
      await finishedWithin(transport.terminateSession().catch(() => {}), TERMINATE_MS);
    }
    await transport.close();
  } catch {
    // Already closed or broken: nothing left to release.
  }
}
