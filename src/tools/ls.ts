/**
 * `ls`: a folder as an indented tree (crush's format), breadth-first so a cut
 * listing still shows the top levels, honouring .gitignore and skipping VCS and
 * dependency folders. Limits come from config `tools.ls`.
 */
import * as path from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import type { Tool } from "./types.ts";
import { defineTool } from "./define.ts";
import { asToolError } from "./failure.ts";
import { currentDir, readsPath, resolveForRun } from "./fs/pinned.ts";
import { requireFolder, VCS_DIRS, walk, type WalkEntry } from "./fs/walk.ts";

/** Config `tools.ls` (crush's keys). */
export interface LsToolOptions {
  /** Deepest level listed; a call's `depth` cannot go beyond it. Unlimited when absent. */
  max_depth?: number;
  /** Most entries listed (default 1000). */
  max_items?: number;
}

/** Folders that are never worth listing even when no .gitignore names them. */
const LS_SKIP: ReadonlySet<string> = new Set([
  ...VCS_DIRS,
  "node_modules",
  "__pycache__",
  ".DS_Store",
  ".mopac", // mopac's own data folder: sessions, not project content
]);

const schema = z.object({
  path: z.string().optional().describe(
    "Folder to list (default the current directory)",
  ),
  ignore: z.array(z.string()).optional().describe(
    'Glob patterns of names to leave out (e.g. "*.test.ts")',
  ),
  depth: z.number().int().min(0).optional().describe(
    "How many levels deep to list (default: no limit)",
  ),
});

const DESCRIPTION = `List a folder as a tree (folders end with "/").
- Files matched by .gitignore are left out, as are .git and node_modules; ignore adds glob patterns of names to leave out.
- depth limits how many levels are shown. Large folders are cut at 1000 entries with a note: then list a subfolder or use glob.`;

export function createLsTool(options: LsToolOptions = {}): Tool {
  const maxItems = options.max_items && options.max_items > 0 ? options.max_items : 1000;
  const maxDepth = options.max_depth && options.max_depth > 0 ? options.max_depth : undefined;

  return defineTool({
    name: "ls",
    description: DESCRIPTION,
    schema,
    access: readsPath((a) => a.path || "."),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real } = await resolveForRun(args, args.path || ".", currentDir(ctx));
        await requireFolder(real, absolute);
        const asked = args.depth && args.depth > 0 ? args.depth : undefined;
        const depth = asked === undefined ? maxDepth : Math.min(asked, maxDepth ?? asked);
        const ignore = (args.ignore ?? []).filter((p) => p !== "");
        const excluded = ignore.length > 0 ? picomatch(ignore, { dot: true }) : null;
        // Every entry listed passes the read rules: a denied name is not shown or entered.
        const readable = ctx.paths?.readable ?? (() => true);
        const entries: WalkEntry[] = [];
        let truncated = false;
        let deeper = false;
        for await (
          const entry of walk({
            root: real,
            hidden: true,
            skipNames: LS_SKIP,
            maxDepth: depth,
            signal: ctx.signal,
            exclude: (e) =>
              !readable(e.abs) || (excluded !== null && (excluded(e.name) || excluded(e.rel))),
          })
        ) {
          if (entries.length >= maxItems) {
            truncated = true;
            break;
          }
          entries.push(entry);
          if (entry.isDir && depth !== undefined && entry.depth === depth) deeper = true;
        }
        let notes = "";
        if (truncated) {
          notes +=
            `There are more than ${maxItems} entries under ${absolute}. The first ${maxItems} ` +
            `(breadth-first) are shown; list a subfolder or use glob to find specific files.\n`;
        }
        if (deeper) {
          notes += `The tree is shown to a depth of ${depth}. Use a larger depth or a more ` +
            `specific path to see deeper levels.\n`;
        }
        return { content: (notes ? notes + "\n" : "") + renderTree(absolute, entries) };
      }),
  });
}

/** crush's tree: `- /root/` then two spaces per level, folders first, then by name. */
function renderTree(root: string, entries: WalkEntry[]): string {
  const children = new Map<string, WalkEntry[]>();
  for (const e of entries) {
    const parent = e.rel.includes("/") ? e.rel.slice(0, e.rel.lastIndexOf("/")) : "";
    let list = children.get(parent);
    if (!list) children.set(parent, list = []);
    list.push(e);
  }
  const lines = [`- ${root.endsWith(path.sep) ? root : root + path.sep}`];
  const visit = (rel: string, level: number) => {
    const list = (children.get(rel) ?? []).sort((a, b) =>
      a.isDir !== b.isDir ? (a.isDir ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
    for (const e of list) {
      const suffix = e.isDir ? "/" : e.isSymlink ? " (symlink)" : "";
      lines.push(`${"  ".repeat(level)}- ${e.name}${suffix}`);
      if (e.isDir) visit(e.rel, level + 1);
    }
  };
  visit("", 1);
  return lines.join("\n");
}
