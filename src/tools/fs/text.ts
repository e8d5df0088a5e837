/**
 * Text encoding helpers. Edits match on plain LF text without a BOM (that is what
 * the model sees in `view`) and are written back in the file's own style, so a
 * CRLF or BOM file stays that way and the diff shows only the real change.
 */

export interface TextStyle {
  bom: boolean;
  crlf: boolean;
}

const BOM = "\uFEFF";

/** Splits a decoded file into LF text without BOM and the style to write it back in. */
export function splitStyle(raw: string): { text: string; style: TextStyle } {
  const bom = raw.startsWith(BOM);
  const body = bom ? raw.slice(1) : raw;
  const crlf = isMostlyCrlf(body);
  return { text: crlf ? body.replaceAll("\r\n", "\n") : body, style: { bom, crlf } };
}

/** Puts LF text back into the file's style. */
export function applyStyle(text: string, style: TextStyle): string {
  const body = style.crlf ? text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : text;
  return style.bom ? BOM + body : body;
}

/** Line breaks the model sends are LF; a CRLF it copied from elsewhere is normalised too. */
export function toLf(s: string): string {
  return s.replaceAll("\r\n", "\n");
}

/**
 * CRLF when most line breaks are CRLF: a mixed file is written back in its
 * dominant style rather than keeping two styles apart line by line.
 */
function isMostlyCrlf(s: string): boolean {
  let crlf = 0;
  let lf = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) {
    if (i > 0 && s.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > 0 && crlf >= lf;
}

/** Bytes inspected to tell binary from text. */
export const SNIFF_BYTES = 8192;

/**
 * Binary when the sample has a NUL byte or more than 10% of it does not decode as
 * UTF-8 (Latin-1 text with a few accents stays text; compressed data does not).
 */
export function looksBinary(sample: Uint8Array): boolean {
  const bytes = sample.subarray(0, SNIFF_BYTES);
  if (bytes.includes(0)) return true;
  if (bytes.length === 0) return false;
  // stream:true so a multi-byte character cut at the sample's end is not counted as bad.
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes, { stream: true });
  let bad = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) bad++;
  return bad / Math.max(text.length, 1) > 0.1;
}

/** Decodes UTF-8 keeping a BOM character; null when the bytes are not valid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Counts non-overlapping occurrences of `needle` (non-empty) in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (
    let i = haystack.indexOf(needle);
    i !== -1;
    i = haystack.indexOf(needle, i + needle.length)
  ) {
    n++;
  }
  return n;
}

/** 1-based line number of character offset `index`. */
export function lineOfIndex(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
