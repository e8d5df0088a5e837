/**
 * `glob`: files whose path (relative to the search folder) matches a pattern,
 * newest first, capped. Patterns are picomatch globs (`**`, braces, classes);
 * like crush, `*.ts` matches at the top level only and `**\/*.ts` at any depth.
 * .gitignore is honoured and hidden files are skipped unless the pattern names a
 * dot-folder or dot-file itself (e.g. `.github/**`).
 */
import * as path from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import type { Tool } from "./types.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { isMissing } from "./fs/paths.ts";
import { currentDir, readsPath, resolveForRun } from "./fs/pinned.ts";
import { byNewest, mtimes } from "./fs/sliced.ts";
import { requireFolder, walkFolders } from "./fs/walk.ts";

export interface GlobToolOptions {
  /** Most paths returned (default 100). */
  max_results?: number;
  /** Most matches collected before sorting (bounds the work on huge trees; default 20000). */
  max_matches?: number;
}

const schema = z.object({
  pattern: z.string().min(1).describe(
    'Glob pattern relative to path, e.g. "**/*.ts" or "src/**/*.{ts,tsx}"',
  ),
  path: z.string().optional().describe("Folder to search in (default the current directory)"),
});

const DESCRIPTION =
  `Find files by name pattern; returns absolute paths, most recently modified first (at most 100).
- pattern is matched against the path relative to path: "*.ts" matches only at the top level, "**/*.ts" at any depth, "src/**/*.{ts,tsx}" under src.
- Supports **, *, ?, [abc] and {a,b}.
- Honours .gitignore; hidden files and folders are skipped unless the pattern names them (".github/**").
- To search file contents use grep; to see a folder's layout use ls.`;

export function createGlobTool(options: GlobToolOptions = {}): Tool {
  const maxResults = options.max_results ?? 100;
  const maxMatches = options.max_matches ?? 20_000;

  return defineTool({
    name: "glob",
    description: DESCRIPTION,
    schema,
    access: readsPath((a) => a.path || "."),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real } = await resolveForRun(args, args.path || ".", currentDir(ctx));
        await requireFolder(real, absolute);
        const pattern = normalisePattern(args.pattern, absolute, real);
        const { found, capped } = await matchingFiles(
          real,
          pattern,
          maxMatches,
          ctx.signal,
          ctx.paths?.readable,
        );
        if (found.length === 0) return { content: "No files found" };
        const times = await mtimes(found.map((rel) => path.join(real, rel)), ctx.signal);
        const rows = found.map((rel) => ({
          path: path.join(absolute, rel),
          mtime: times.get(path.join(real, rel)) ?? 0,
        })).sort(byNewest);
        let out = rows.slice(0, maxResults).map((r) => r.path).join("\n");
        if (rows.length > maxResults || capped) {
          out +=
            `\n\n(Results are truncated: showing the ${maxResults} most recently modified of ` +
            `${
              capped ? "more than " : ""
            }${rows.length} matches. Use a more specific path or pattern.)`;
        }
        return { content: out };
      }),
  });
}

/** Files below `root` whose relative path matches `pattern`, at most `max` of them. */
async function matchingFiles(
  root: string,
  pattern: string,
  max: number,
  signal: AbortSignal,
  readable: (abs: string) => boolean = () => true,
): Promise<{ found: string[]; capped: boolean }> {
  const isMatch = picomatch(pattern, { dot: true });
  const hidden = /(^|\/)\.[^./*?[{]/.test(pattern);
  // Walk only below the pattern's literal prefix ("src/**" walks src).
  const base = picomatch.scan(pattern).base;
  const found: string[] = [];
  try {
    // Every file listed and folder entered passes the read rules.
    const walk = walkFolders({
      root: base ? path.join(root, base) : root,
      hidden,
      signal,
      exclude: (e) => !readable(e.abs),
    });
    for await (const batch of walk) {
      for (const entry of batch) {
        const rel = base ? `${base}/${entry.rel}` : entry.rel;
        if (!entry.isFile || !isMatch(rel)) continue;
        if (found.length >= max) return { found, capped: true };
        found.push(rel);
      }
    }
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  return { found, capped: false };
}

/** Relative, slash-separated pattern; refuses patterns that climb out of the search folder. */
function normalisePattern(pattern: string, absolute: string, real: string): string {
  let p = pattern.replaceAll("\\", "/");
  for (const root of [absolute, real]) {
    const prefix = root.replaceAll("\\", "/").replace(/\/?$/, "/");
    if (p.startsWith(prefix)) p = p.slice(prefix.length);
  }
  p = p.replace(/^(\.\/)+/, "").replace(/^\/+/, "");
  if (p.split("/").includes("..")) {
    throw new ToolFailure(
      `pattern must not contain "..": it is matched below path. Set path to the folder to search instead.`,
    );
  }
  if (p === "") throw new ToolFailure("pattern is empty after removing the folder prefix.");
  return p;
}
