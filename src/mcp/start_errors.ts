/** Messages for a server that failed to start: a dead child's stderr beats "Connection closed". */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { StdioTransport } from "./stdio_transport.ts";
import { errorText } from "./call_errors.ts";

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
