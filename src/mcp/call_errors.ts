/**
 * Sorts what went wrong with a request, because the right reaction differs: a request
 * the server provably never received can be retried on a fresh connection; one that
 * was in flight when the connection died must not be (it may have run); a timeout or
 * a protocol error goes back to the model as a tool error.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";

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
