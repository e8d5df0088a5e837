/**
 * What went wrong with an MCP server, in words that help. A request: sorted,
 * because the right reaction differs: one the server provably never received can be
 * retried on a fresh connection; one that was in flight when the connection died must
 * not be (it may have run); a timeout or a protocol error goes back to the model as a
 * tool error. A server that failed to start: the reason, with its last stderr lines.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { StdioTransport } from "./stdio_transport.ts";

/** A send that failed before the server could have acted on the message. */
export class UndeliveredError extends Error {
  constructor(cause: unknown) {
    super(`request not delivered: ${errorText(cause)}`, { cause });
    this.name = "UndeliveredError";
  }
}

export type CallFailure =
  | "cancelled"
  | "timeout"
  | "undelivered"
  | "connection"
  | "protocol";

/** A call that did not produce a result; `message` is written for the model. */
export class McpCallError extends Error {
  constructor(readonly kind: CallFailure, message: string) {
    super(message);
    this.name = "McpCallError";
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * What the SDK reports through `onerror` that is no news to anyone: progress for a token
 * this client never gave (a server's stray or late notification; the call itself is
 * unaffected), and a Streamable HTTP server declining the optional GET stream with 404
 * instead of the 405 the SDK already keeps quiet about (requests and answers still flow
 * over POST).
 */
export function isNoise(err: unknown): boolean {
  const text = errorText(err);
  if (/^Received a progress notification for an unknown token\b/.test(text)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === 404 && /Failed to open SSE stream/.test(text);
}

/** Whether a send error proves the message never reached the server. */
function provablyUndelivered(err: unknown): boolean {
  if (err instanceof Deno.errors.BrokenPipe || err instanceof Deno.errors.ConnectionRefused) {
    return true;
  }
  const code = (err as { code?: unknown })?.code;
  // Streamable HTTP: 404 = session expired; 400 = session unknown to this server.
  if ((code === 404 || code === 400) && err instanceof Error && /POST|session/i.test(err.message)) {
    return true;
  }
  const text = errorText(err);
  return /not running|Not connected|Connection refused|tcp connect error|HTTP 404|HTTP 400/i
    .test(text);
}

/** Wraps `transport.send` so that provably undelivered sends reject with UndeliveredError. */
export function tagUndelivered(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } catch (err) {
      throw provablyUndelivered(err) ? new UndeliveredError(err) : err;
    }
  };
}

export function classifyFailure(
  err: unknown,
  signal: AbortSignal | undefined,
  connectionLost: boolean,
): CallFailure {
  if (signal?.aborted) return "cancelled";
  if (err instanceof UndeliveredError) return "undelivered";
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return "timeout";
    // -32000 is also the first code of JSON-RPC's server-error range, which servers use
    // for their own failures: only a connection that really closed counts as lost.
    if (err.code === ErrorCode.ConnectionClosed) return connectionLost ? "connection" : "protocol";
    return "protocol";
  }
  // "Not connected" comes from the SDK itself when the transport is already gone.
  if (err instanceof Error && /^Not connected/.test(err.message)) return "undelivered";
  return connectionLost ? "connection" : "protocol";
}

// Why a server failed to start: a dead child's stderr beats "Connection closed".

export function explainStartFailure(err: unknown, transport: Transport): string {
  if (err instanceof Deno.errors.NotFound && transport instanceof StdioTransport) {
    return `command not found: ${transport.command}`;
  }
  if (err instanceof Deno.errors.NotCapable) return `${errorText(err)} (Deno permission)`;
  // Only a child that died by itself: after an error answer the SDK closes the
  // transport, and "exited with code 0" would hide what the server said.
  if (transport instanceof StdioTransport && transport.exitStatus && transport.exitedOnItsOwn) {
    return `server exited with code ${transport.exitStatus.code}${stderrHint(transport)}`;
  }
  const status = (err as { code?: unknown })?.code;
  const text = errorText(err);
  if (
    typeof status === "number" && status >= 100 && status < 600 && !text.includes(String(status))
  ) {
    return `${text} (HTTP ${status})`;
  }
  return text + stderrHint(transport);
}

/** The last stderr lines of a stdio server, as a suffix for an error message. */
export function stderrHint(transport: Transport): string {
  if (!(transport instanceof StdioTransport) || !transport.stderrTail) return "";
  const lines = transport.stderrTail.split("\n").filter((l) => l.trim() !== "");
  return `; stderr: ${lines.slice(-3).join(" | ").slice(0, 500)}`;
}
