/**
 * Reads a window of lines from a file of any size with bounded memory: lines
 * before the window are only counted (newline bytes, never decoded), each line
 * keeps at most `maxLineChars` characters, and reading stops once the window is
 * full. A 1 GB log costs a scan up to the offset, never a 1 GB string.
 */
import { concatBytes } from "../../util/bytes.ts";

export interface LineWindow {
  /** The lines of the window, without line breaks, each cut to maxLineChars. */
  lines: string[];
  /** How many of `lines` were longer than maxLineChars and cut. */
  cut: number;
  /** More content follows the window. */
  more: boolean;
  /**
   * Lines in the file: known when the end was reached, and after a full window when
   * the rest was short enough to count (see `countBytes`).
   */
  total?: number;
}

export interface WindowOptions {
  signal?: AbortSignal;
  /** What a line costs of `budget` (e.g. its length as shown); default 0. */
  cost?: (text: string, lineIndex: number) => number;
  /** The window ends before the line that would take the cost over this (one line always fits). */
  budget?: number;
  /** Bytes after a full window scanned to count the lines left (default 64 MiB). */
  countBytes?: number;
}

const CHUNK = 64 * 1024;
const NL = 0x0a;

/** Lines `offset` (0-based) to `offset + limit` of `file`, within the options' budget. */
export async function readLineWindow(
  file: string,
  offset: number,
  limit: number,
  maxLineChars: number,
  opts: WindowOptions = {},
): Promise<LineWindow> {
  const { signal, cost = () => 0, budget = Infinity, countBytes = 64 * 1024 * 1024 } = opts;
  const maxLineBytes = maxLineChars * 4; // no UTF-8 character is longer
  const lines: string[] = [];
  let cut = 0;
  let spent = 0;
  let full = false; // the window is complete: the rest is only counted
  let lineIndex = 0; // index of the line being read
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let overflow = false;
  let inLine = false; // bytes of an unfinished line were seen
  let counted = 0; // bytes scanned after the window was full

  const finishLine = () => {
    if (!full && lineIndex >= offset) {
      const { text, wasCut } = decodeLine(parts, overflow, maxLineChars, lineIndex === 0);
      const price = cost(text, lineIndex);
      if (lines.length > 0 && spent + price > budget) full = true;
      else {
        lines.push(text);
        spent += price;
        if (wasCut) cut++;
        if (lines.length >= limit) full = true;
      }
    }
    parts = [];
    partBytes = 0;
    overflow = false;
    inLine = false;
    lineIndex++;
  };

  const handle = await Deno.open(file, { read: true });
  try {
    const buf = new Uint8Array(CHUNK);
    while (true) {
      signal?.throwIfAborted();
      const n = await handle.read(buf);
      if (n === null) break;
      const chunk = buf.subarray(0, n);
      if (full) {
        counted += n;
        if (counted > countBytes) return { lines, cut, more: true };
      }
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(NL, start);
        const end = nl === -1 ? chunk.length : nl;
        if (end > start) inLine = true;
        if (!full && lineIndex >= offset && !overflow) {
          const room = maxLineBytes - partBytes;
          const piece = chunk.slice(start, Math.min(end, start + room));
          parts.push(piece);
          partBytes += piece.length;
          if (end - start > room) overflow = true;
        }
        if (nl === -1) break;
        finishLine();
        start = nl + 1;
      }
    }
  } finally {
    handle.close();
  }
  // A last line without a final newline still counts.
  if (inLine) finishLine();
  const shownEnd = offset + lines.length;
  return { lines, cut, more: lineIndex > shownEnd, total: lineIndex };
}

function decodeLine(
  parts: Uint8Array[],
  overflow: boolean,
  maxChars: number,
  firstLine: boolean,
): { text: string; wasCut: boolean } {
  const bytes = concatBytes(parts);
  // stream:true holds back a character cut in half at the byte limit.
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes, { stream: overflow });
  if (firstLine && text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (overflow || text.length > maxChars) return { text: text.slice(0, maxChars), wasCut: true };
  return { text, wasCut: false };
}
