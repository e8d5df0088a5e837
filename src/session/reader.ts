/**
 * Reads a session file. Content never makes it throw: a torn last line (a crash
 * mid-write) and malformed lines are skipped and reported once per read on `warn`,
 * with the file and line numbers; every valid line is applied.
 */
import { basename } from "node:path";
import { SESSION_FORMAT_VERSION, type SessionHeader } from "./types.ts";
import { asRecord } from "./records.ts";
import { SessionState } from "./state.ts";
import { shortIdOf, timeOfSessionId } from "./ids.ts";

export interface ReadResult {
  state: SessionState;
  /** The header line, or one made up from the file name when it is missing. */
  header: SessionHeader;
  /** Bytes read (what the index compares to see whether it is current). */
  size: number;
  /** False when the file ends in a torn line: the next append must start a new line. */
  endsClean: boolean;
}

const MAX_LISTED = 10;

/** Parses file content; `file` names the file in warnings. */
export function parseSession(
  bytes: Uint8Array,
  file: string,
  warn?: (msg: string) => void,
): ReadResult {
  const text = new TextDecoder().decode(bytes);
  const state = new SessionState();
  const bad: number[] = [];
  let torn = false;
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    const last = end === -1;
    if (last) end = text.length;
    lineNo++;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    let record;
    try {
      record = asRecord(JSON.parse(line));
    } catch {
      record = undefined;
    }
    if (record) state.apply(record);
    else if (last) torn = true;
    else bad.push(lineNo);
  }
  if (warn && (bad.length > 0 || torn)) warn(describe(file, bad, torn ? lineNo : undefined));
  const header = state.header ?? fallbackHeader(file, state);
  if (!state.header && warn) {
    warn(`session file ${file}: no valid header line; using the file name`);
  }
  return {
    state,
    header,
    size: bytes.length,
    endsClean: bytes.length === 0 || bytes[bytes.length - 1] === 0x0a,
  };
}

export async function readSessionFile(
  path: string,
  warn?: (msg: string) => void,
): Promise<ReadResult> {
  return parseSession(await Deno.readFile(path), path, warn);
}

export function readSessionFileSync(path: string, warn?: (msg: string) => void): ReadResult {
  return parseSession(Deno.readFileSync(path), path, warn);
}

function describe(file: string, bad: number[], tornLine?: number): string {
  const parts: string[] = [];
  if (bad.length > 0) {
    const listed = bad.slice(0, MAX_LISTED).join(", ");
    const more = bad.length > MAX_LISTED ? ` and ${bad.length - MAX_LISTED} more` : "";
    parts.push(
      `skipped ${bad.length} malformed line${bad.length === 1 ? "" : "s"} (line ${listed}${more})`,
    );
  }
  if (tornLine !== undefined) parts.push(`ignored a torn last line (line ${tornLine})`);
  return `session file ${file}: ${parts.join("; ")}`;
}

function fallbackHeader(file: string, state: SessionState): SessionHeader {
  const id = basename(file).replace(/\.jsonl$/, "");
  const first = state.messages.values().next().value;
  return {
    type: "session",
    v: SESSION_FORMAT_VERSION,
    id,
    short_id: shortIdOf(id),
    created_at: timeOfSessionId(id) ?? first?.created_at ?? state.updatedAt,
    cwd: "",
  };
}
