/**
 * `grep`: lines matching a regular expression, grouped by file, newest files
 * first (crush's format). Uses ripgrep when it is on PATH and Deno may run it,
 * else a built-in search with the same rules; the output is the same either way.
 */
import * as path from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import type { Tool } from "./types.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { isMissing } from "./fs/paths.ts";
import { currentDir, readsPath, resolveForRun } from "./fs/pinned.ts";
import {
  PatternError,
  type SearchMatch,
  searchNamedFile,
  type SearchRequest,
  searchWithJs,
} from "./search/search_js.ts";
import { searchWithRg } from "./search/search_rg.ts";
import { rgExclusions } from "./search/exclusions.ts";
import { byNewest, mtimes } from "./fs/sliced.ts";
import { requireFolder } from "./fs/walk.ts";
import { DEFAULT_LIMITS } from "./truncate.ts";

export interface GrepToolOptions {
  /** ripgrep command (default "rg"); false to always use the built-in search. */
  ripgrep?: string | false;
  /** Most matching lines shown (default 100). */
  max_results?: number;
  /** Files larger than this are not searched (default 10 MB). */
  max_file_bytes?: number;
  /** Search time limit in ms (default 60 s). */
  timeout_ms?: number;
}

/** Most matching lines kept per file: no more can be shown anyway. */
const MAX_PER_FILE = 100;
/** Characters of a matching line shown. */
const MAX_LINE_CHARS = 500;

const schema = z.object({
  pattern: z.string().min(1).describe(
    "Regular expression to search for (or plain text with literal_text)",
  ),
  path: z.string().optional().describe(
    "File or folder to search in (default the current directory)",
  ),
  include: z.string().optional().describe(
    'Only files matching this glob, e.g. "*.ts" or "*.{ts,tsx}"',
  ),
  literal_text: z.boolean().optional().describe(
    "Treat pattern as plain text, not a regular expression (default false)",
  ),
});

const DESCRIPTION =
  `Search file contents with a regular expression. Returns matching lines grouped by file ("Line N: text"), most recently modified files first, at most 100 lines.
- pattern: regular expression (e.g. "function\\s+\\w+"); set literal_text to true to search for plain text containing characters like ( ) [ ] . * ?.
- include: glob filter on file names ("*.ts", "*.{ts,tsx}") or on paths relative to path ("src/**/*.ts").
- Honours .gitignore; hidden files, binary files and files over 10 MB are skipped. Lines are matched one at a time.
- Lines are shown without leading and trailing whitespace and cut at ${MAX_LINE_CHARS} characters (ending in "…[cut]"): view the file before copying text from here into an edit.
- To find files by name use glob.`;

export function createGrepTool(options: GrepToolOptions = {}): Tool {
  const rg = options.ripgrep === undefined ? "rg" : options.ripgrep;
  const maxResults = options.max_results ?? 100;
  const maxFileBytes = options.max_file_bytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeout_ms ?? 60_000;

  return defineTool({
    name: "grep",
    description: DESCRIPTION,
    schema,
    access: readsPath((a) => a.path || "."),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real } = await resolveForRun(args, args.path || ".", currentDir(ctx));
        // A single named file is searched as is; a folder is walked with the ignore rules.
        const single = await isFile(real);
        if (!single) await requireFolder(real, absolute);
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(), timeoutMs);
        const req: SearchRequest = {
          root: single ? path.dirname(real) : real,
          pattern: args.literal_text ? escapeRegex(args.pattern) : args.pattern,
          include: includeFilter(args.include),
          maxPerFile: MAX_PER_FILE,
          maxFileBytes,
          signal: AbortSignal.any([ctx.signal, timeout.signal]),
          // Every file searched passes the read rules, not only the folder named.
          readable: ctx.paths?.readable,
          rgExclude: ctx.paths
            ? rgExclusions(ctx.paths.denyGlobs, ctx.workspace, single ? path.dirname(real) : real)
            : undefined,
        };
        let matches: SearchMatch[];
        try {
          if (single) matches = searchNamedFile(req, path.basename(real));
          else matches = (rg ? await searchWithRg(req, rg) : null) ?? await searchWithJs(req);
        } catch (err) {
          if (err instanceof PatternError) {
            throw new ToolFailure(`${err.message}. Fix the pattern, or set literal_text to true.`);
          }
          if (timeout.signal.aborted && !ctx.signal.aborted) {
            const limit = `${timeoutMs / 1000} s`;
            throw new ToolFailure(
              `The search took longer than ${limit} and was stopped. Narrow path or include.`,
            );
          }
          throw err;
        } finally {
          clearTimeout(timer);
        }
        const where = single ? { real: () => real, shown: () => absolute } : {
          real: (rel: string) => path.join(real, rel),
          shown: (rel: string) => path.join(absolute, rel),
        };
        return { content: await formatMatches(matches, where, maxResults, ctx.signal) };
      }),
  });
}

async function isFile(real: string): Promise<boolean> {
  try {
    return (await Deno.stat(real)).isFile;
  } catch (err) {
    if (isMissing(err)) return false; // requireFolder reports it
    throw err;
  }
}

/** Escapes the characters that are special in both JS and Rust regex syntax. */
function escapeRegex(text: string): string {
  return text.replace(/[\\.+*?()[\]{}^$|]/g, "\\$&");
}

/** A name-only glob ("*.ts") matches the file name at any depth; one with "/" the relative path. */
function includeFilter(include: string | undefined): ((rel: string) => boolean) | null {
  const glob = include?.trim().replace(/^\.\//, "");
  if (!glob) return null;
  const match = picomatch(glob, { dot: true });
  if (glob.includes("/")) return (rel) => match(rel);
  return (rel) => match(rel.slice(rel.lastIndexOf("/") + 1));
}

async function formatMatches(
  matches: SearchMatch[],
  where: { real: (rel: string) => string; shown: (rel: string) => string },
  maxResults: number,
  signal: AbortSignal,
): Promise<string> {
  if (matches.length === 0) return "No files found";
  const byFile = new Map<string, SearchMatch[]>();
  for (const m of matches) {
    const list = byFile.get(m.rel);
    if (list) list.push(m);
    else byFile.set(m.rel, [m]);
  }
  const times = await mtimes([...byFile.keys()].map(where.real), signal);
  const files = [...byFile.keys()]
    .map((rel) => ({ rel, path: where.shown(rel), mtime: times.get(where.real(rel)) ?? 0 }))
    .sort(byNewest);
  const lines: string[] = [];
  let shownCount = 0;
  // Within the tool output limit, so the result is never cut in the middle.
  let room = DEFAULT_LIMITS.maxChars - 500;
  outer: for (const file of files) {
    if (shownCount >= maxResults) break;
    const header = `${lines.length > 0 ? "\n" : ""}${file.path}:`;
    const fileMatches = byFile.get(file.rel)!.sort((a, b) => a.line - b.line);
    let first = true;
    for (const m of fileMatches.slice(0, maxResults - shownCount)) {
      const line = `  Line ${m.line}: ${cutLine(m.text.trim())}`;
      const cost = line.length + 1 + (first ? header.length + 1 : 0);
      if (cost > room) break outer;
      if (first) lines.push(...header.split("\n"));
      first = false;
      lines.push(line);
      room -= cost;
      shownCount++;
    }
  }
  const total = matches.length;
  const capped = [...byFile.values()].some((list) => list.length >= MAX_PER_FILE);
  const head = total > shownCount
    ? `Found ${total}${
      capped ? "+" : ""
    } matches in ${files.length} files; showing the first ${shownCount}`
    : `Found ${total} matches`;
  let out = `${head}\n${lines.join("\n")}`;
  if (total > shownCount) {
    out += "\n\n(Results are truncated. Consider using a more specific path, include or pattern.)";
  }
  return out;
}

function cutLine(text: string): string {
  return text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) + "…[cut]" : text;
}
