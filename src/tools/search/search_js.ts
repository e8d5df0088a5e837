/**
 * The built-in content search used when ripgrep is not available. It reproduces
 * the rules the ripgrep backend runs with (see search_rg.ts): .gitignore honoured,
 * hidden files skipped, symlinks not followed, files over the size cap and files
 * with NUL bytes skipped, at most `maxPerFile` matching lines per file, lines
 * split on "\n" (a "\r" stays part of the line, as in rg).
 */
import { forEachSliced } from "../fs/sliced.ts";
import { walkFolders } from "../fs/walk.ts";

export interface SearchRequest {
  /** Absolute real path of the folder searched. */
  root: string;
  /** Regular expression source (already escaped for literal searches). */
  pattern: string;
  /** Filter on the path relative to root (slash-separated); null = every file. */
  include: ((rel: string) => boolean) | null;
  maxPerFile: number;
  maxFileBytes: number;
  signal?: AbortSignal;
  /**
   * Whether a file or folder (absolute path) may be read at all: denied ones are
   * neither searched nor entered, whatever .gitignore says. Absent: all may.
   */
  readable?: (abs: string) => boolean;
  /** ripgrep `--glob` exclusions saying the same (rg reads nothing they exclude). */
  rgExclude?: string[];
}

export interface SearchMatch {
  /** Path relative to the search root, slash-separated. */
  rel: string;
  /** 1-based line number. */
  line: number;
  /** The line as in the file, without its line break. */
  text: string;
}

/** Thrown when the pattern is not a valid regular expression. */
export class PatternError extends Error {}

const decoder = new TextDecoder();

export async function searchWithJs(req: SearchRequest): Promise<SearchMatch[]> {
  const regex = compile(req.pattern);
  // Most files do not match at all: one multiline test of the whole text rules them out
  // before splitting into lines (a line match is always a match of the whole text with "m").
  const anyLine = new RegExp(regex.source, regex.flags + "m");
  const files: string[] = [];
  const readable = req.readable;
  const exclude = readable ? (e: { abs: string }) => !readable(e.abs) : undefined;
  for await (const batch of walkFolders({ root: req.root, signal: req.signal, exclude })) {
    for (const entry of batch) {
      if (entry.isFile && (!req.include || req.include(entry.rel))) files.push(entry.rel);
    }
  }
  const out: SearchMatch[] = [];
  // Read synchronously in slices (sliced.ts): most files are small and most do not match.
  await forEachSliced(files, req.signal, (rel) => searchFile(req, rel, regex, anyLine, out));
  return out;
}

/** Searches one file the caller named (in `req.root`): no ignore or hidden rules apply to it. */
export function searchNamedFile(req: SearchRequest, name: string): SearchMatch[] {
  const regex = compile(req.pattern);
  const out: SearchMatch[] = [];
  searchFile(req, name, regex, new RegExp(regex.source, regex.flags + "m"), out);
  return out;
}

/** JS RegExp for a pattern; Unicode mode when the pattern allows it (closer to rg). */
export function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (err) {
      throw new PatternError(`invalid regular expression: ${(err as Error).message}`);
    }
  }
}

function searchFile(
  req: SearchRequest,
  rel: string,
  regex: RegExp,
  anyLine: RegExp,
  out: SearchMatch[],
): void {
  const bytes = readCapped(`${req.root}/${rel}`, req.maxFileBytes);
  if (bytes === null || bytes.includes(0)) return;
  // Default TextDecoder drops a UTF-8 BOM, as rg does.
  const text = decoder.decode(bytes);
  if (!anyLine.test(text)) return;
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  let found = 0;
  for (let i = 0; i < lines.length && found < req.maxPerFile; i++) {
    if (regex.test(lines[i])) {
      out.push({ rel, line: i + 1, text: lines[i] });
      found++;
    }
  }
}

/** Whole file, or null when it is larger than `max` bytes or cannot be read. */
function readCapped(file: string, max: number): Uint8Array | null {
  try {
    // The walk only hands regular files over, so a read never blocks on a FIFO.
    if (Deno.statSync(file).size > max) return null;
    return Deno.readFileSync(file);
  } catch {
    return null;
  }
}
