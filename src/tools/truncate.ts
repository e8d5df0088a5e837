/**
 * Cuts long tool output to its head and tail, which is where commands print what
 * matters (the command echo and the final error), with a note saying how much was cut.
 */

export interface TruncateLimits {
  /** Most characters kept in all. */
  maxChars: number;
  /** Most lines kept in all. */
  maxLines: number;
}

export const DEFAULT_LIMITS: TruncateLimits = { maxChars: 30_000, maxLines: 2_000 };

export function truncateOutput(text: string, limits: TruncateLimits = DEFAULT_LIMITS): string {
  const lines = text.split("\n");
  if (text.length <= limits.maxChars && lines.length <= limits.maxLines) return text;

  const headLines = Math.floor(limits.maxLines / 2);
  const tailLines = limits.maxLines - headLines;
  const headChars = Math.floor(limits.maxChars / 2);
  const tailChars = limits.maxChars - headChars;

  let head = lines.slice(0, headLines).join("\n");
  let tail = lines.length > headLines ? lines.slice(-tailLines).join("\n") : "";
  if (lines.length <= limits.maxLines) {
    // Few but long lines: cut by characters only.
    head = text.slice(0, headChars);
    tail = text.slice(text.length - tailChars);
  } else {
    if (head.length > headChars) head = head.slice(0, headChars);
    if (tail.length > tailChars) tail = tail.slice(tail.length - tailChars);
  }
  const cutChars = text.length - head.length - tail.length;
  const cutLines = countLines(text) - countLines(head) - countLines(tail);
  const note = `\n\n[... ${cutChars} characters (${Math.max(cutLines, 0)} lines) cut ...]\n\n`;
  return head + note + tail;
}

function countLines(s: string): number {
  if (s === "") return 0;
  let n = 1;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
