/**
 * `multiedit`: several replacements in one file, applied in order to the text in
 * memory and written only if every one of them succeeds (all or none; crush keeps
 * partial results, but an unattended run is safer with a file that is either
 * fully changed or untouched).
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
import type { EditToolOptions } from "./edit.ts";

const editSchema = z.object({
  old_string: z.string().describe(
    "Exact text to replace (empty only in the first edit, to create the file)",
  ),
  new_string: z.string().describe("Text to put in its place"),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence of old_string (default false)",
  ),
});

const schema = z.object({
  file_path: z.string().min(1).describe(
    "Path of the file to change",
  ),
  edits: z.array(editSchema).min(1).describe(
    "Edits applied in order; each sees the result of the previous one",
  ),
}).superRefine((value, check) => {
  value.edits.forEach((edit, i) => {
    if (i > 0 && edit.old_string === "") {
      check.addIssue({
        code: "custom",
        path: ["edits", i, "old_string"],
        message: "must not be empty (only the first edit may be empty, to create the file)",
      });
    }
  });
});

const DESCRIPTION =
  `Make several edits to one file in a single call. Prefer it over repeated edit calls on the same file.
- Every edit follows the edit tool's rules (exact file text without view's "    12|" line prefix, unique unless replace_all).
- All or none: if any edit fails, nothing is written and the error says which edit failed and why.
- A first edit with an empty old_string creates the file; the following edits then apply to that new content.
- The file must have been viewed in this session and not changed since. The result shows one unified diff.`;

export function createMultiEditTool(options: EditToolOptions = {}): Tool {
  return defineTool({
    name: "multiedit",
    description: DESCRIPTION,
    schema,
    access: writesPath((a) => a.file_path),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real, info, label } = await writeTarget(args, ctx);
        const creating = args.edits[0].old_string === "";
        let base: string;
        let raw: string | null = null;
        let style = { bom: false, crlf: false };
        if (creating) {
          if (info !== null && info.size > 0) {
            throw new ToolFailure(
              `File already exists and is not empty: ${absolute}. The first edit's old_string may ` +
                `be empty only to create a new file.`,
            );
          }
          base = args.edits[0].new_string;
        } else {
          if (info === null) {
            throw new ToolFailure(
              `File not found: ${absolute}. To create it, make the first edit's old_string empty.`,
            );
          }
          requireFreshView(ctx, real, info, absolute);
          const file = await loadText(real, info, absolute, options.maxFileBytes);
          ({ raw, style } = file);
          base = file.text;
        }
        let text = base;
        let replaced = 0;
        for (let i = creating ? 1 : 0; i < args.edits.length; i++) {
          try {
            const result = applyReplacement(text, args.edits[i], `edits[${i}].old_string`);
            text = result.text;
            replaced += result.count;
          } catch (err) {
            if (!(err instanceof ToolFailure)) throw err;
            throw new ToolFailure(
              `Edit ${i + 1} of ${args.edits.length} failed; no changes were made. ${err.message}`,
            );
          }
        }
        if (creating) {
          const output = await createFile(ctx, real, absolute, label, info, text);
          return {
            content: output.content.replace(/^Created/, `Created (${args.edits.length} edits)`),
          };
        }
        if (text === base) {
          throw new ToolFailure(
            "The edits together leave the file exactly as it was; nothing was written.",
          );
        }
        await commitWrite(ctx, real, raw, applyStyle(text, style));
        const diff = await unifiedDiff(label, base, text);
        return {
          content:
            `Edited ${absolute}: applied ${args.edits.length} edits (${replaced} replacements, ` +
            `+${diff.additions} -${diff.removals}).\n\n${diffBlock(diff)}`,
        };
      }),
  });
}
