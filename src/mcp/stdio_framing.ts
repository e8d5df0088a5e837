/**
 * The stdio framing of MCP: one JSON-RPC message a line on the child's stdout. Lines
 * that are not a message (servers that log to stdout) are skipped, and a line without
 * end is dropped at a size cap, so neither can end the connection or take all memory.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";

/** Longest line read from stdout (in UTF-16 units): 64 Mi, room for a big image. */
const MAX_MESSAGE_CHARS = 64 * 1024 * 1024;
const MAX_SKIPPED_REPORTS = 20;

export interface MessageSink {
  onmessage(message: JSONRPCMessage): void;
  /** Skipped and dropped lines; the stream goes on after them. */
  onerror(error: Error): void;
}

/** Reads messages until stdout ends; a failing stream rejects. */
export async function readMessages(
  stdout: ReadableStream<Uint8Array>,
  sink: MessageSink,
): Promise<void> {
  const deliver = messageDecoder(sink);
  // The pieces of an unfinished line are kept apart and joined once, at its newline:
  // re-scanning one growing buffer made a 40 MB answer take seconds.
  let parts: string[] = [];
  let size = 0;
  let discarding = false;
  for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) >= 0) {
      parts.push(chunk.slice(start, nl));
      start = nl + 1;
      const line = discarding ? "" : parts.join("").replace(/\r$/, "");
      parts = [];
      size = 0;
      discarding = false;
      if (line.trim() !== "") deliver(line);
    }
    if (discarding || start === chunk.length) continue;
    parts.push(chunk.slice(start));
    size += chunk.length - start;
    if (size > MAX_MESSAGE_CHARS) {
      // Unbounded, one line would take all memory: it is skipped up to its newline.
      parts = [];
      discarding = true;
      sink.onerror(
        new Error(`a line of more than ${MAX_MESSAGE_CHARS} characters on stdout was discarded`),
      );
    }
  }
}

function messageDecoder(sink: MessageSink): (line: string) => void {
  let skippedLines = 0;
  return (line) => {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      // Servers that print logs to stdout: skip the line, keep the connection. Only the
      // first few are reported, or a chatty server would bury every other warning.
      const n = ++skippedLines;
      if (n > MAX_SKIPPED_REPORTS) return;
      const more = n === MAX_SKIPPED_REPORTS ? " (further such lines are not reported)" : "";
      sink.onerror(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 200)}${more}`));
      return;
    }
    sink.onmessage(message);
  };
}
