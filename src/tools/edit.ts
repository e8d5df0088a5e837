/**
 * `edit`: replace an exact string in a file (or create a file when old_string is
 * empty). Matching happens on the LF text the model saw in `view`; the result is
 * written back with the file's own BOM and line endings, and the result shows a
 * unified diff.
 */
import * as z from "zod";
import type { Tool } from "./types.ts";
import { defineTool } from "./define.ts";
import { diffBlock, unifiedDiff } from "./fs/diff.ts";
import { commitWrite, createFile, loadText, requireFreshView, writeTarget } from "./fs/editable.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { writesPath } from "./fs/pinned.ts";
import { applyReplacement } from "./fs/replace.ts";
import { applyStyle } from "./fs/text.ts";

export interface EditToolOptions {
  /** Largest file edited in memory (default 10 MB). */
  maxFileBytes?: number;
}

const schema = z.object({
  file_path: z.string().min(1).describe(
    "Path of the file to change",
  ),
  old_string: z.string().describe("Exact text to replace; empty to create a new file"),
  new_string: z.string().describe("Text to put in its place"),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence of old_string (default false)",
  ),
});

const DESCRIPTION = `Edit a file by replacing exact text.
- old_string and new_string are file text, without view's line-number prefix ("    12|").
- old_string must match the file exactly (every space, tab and line break) and, unless replace_all is true, exactly once: include enough surrounding lines to make it unique.
- Empty old_string creates a new file containing new_string (parent folders are created); it fails if the file exists and is not empty.
- Empty new_string deletes old_string.
- The file must have been viewed in this session and not changed since; otherwise view it again.
- Line endings (CRLF) and a byte-order mark are kept as they were. The result shows a unified diff.
- For several changes to one file use multiedit; to replace a whole file use write; to move or delete files use bash.`;

export function createEditTool(options: EditToolOptions = {}): Tool {
  return defineTool({
    name: "edit",
    description: DESCRIPTION,
    schema,
    access: writesPath((a) => a.file_path),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real, info, label } = await writeTarget(args, ctx);
        if (args.old_string === "") {
          return await createFile(ctx, real, absolute, label, info, args.new_string);
        }
        if (info === null) {
          throw new ToolFailure(
            `File not found: ${absolute}. To create it, call edit with an empty old_string, or use write.`,
          );
        }
        requireFreshView(ctx, real, info, absolute);
        const file = await loadText(real, info, absolute, options.maxFileBytes);
        const { text, count } = applyReplacement(file.text, args);
        await commitWrite(ctx, real, file.raw, applyStyle(text, file.style));
        const diff = await unifiedDiff(label, file.text, text);
        const what = args.new_string === "" ? "deleted" : "replaced";
        return {
          content: `Edited ${absolute}: ${what} ${count} occurrence${count === 1 ? "" : "s"} ` +
            `(+${diff.additions} -${diff.removals}).\n\n${diffBlock(diff)}`,
        };
      }),
  });
}
