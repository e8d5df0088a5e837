/**
 * `write`: put whole content into a file, creating parent folders. Replacing an
 * existing file needs a prior view in this session and an unchanged file, like
 * edit, so the model never overwrites what it has not seen.
 */
import * as z from "zod";
import type { Tool } from "./types.ts";
import { defineTool } from "./define.ts";
import { diffBlock, unifiedDiff } from "./fs/diff.ts";
import { commitWrite, createFile, loadText, requireFreshView, writeTarget } from "./fs/editable.ts";
import { asToolError } from "./failure.ts";
import { toLf } from "./fs/text.ts";
import { writesPath } from "./fs/pinned.ts";
import type { EditToolOptions } from "./edit.ts";

const schema = z.object({
  file_path: z.string().min(1).describe(
    "Path of the file to write",
  ),
  content: z.string().describe("The complete new content of the file"),
});

const DESCRIPTION = `Write a whole file: create it, or replace all of its content.
- Parent folders are created as needed.
- Replacing an existing file requires that you viewed it in this session and that it has not changed since.
- content is written exactly as given (line endings included). For changes to part of a file prefer edit or multiedit.
- The result shows a unified diff against the previous content.`;

export function createWriteTool(options: EditToolOptions = {}): Tool {
  return defineTool({
    name: "write",
    description: DESCRIPTION,
    schema,
    access: writesPath((a) => a.file_path),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real, info, label } = await writeTarget(args, ctx);
        if (info === null) return await createFile(ctx, real, absolute, label, null, args.content);
        requireFreshView(ctx, real, info, absolute);
        const old = await loadText(real, info, absolute, options.maxFileBytes);
        if (old.raw === args.content) {
          return { content: `${absolute} already has exactly this content; nothing was written.` };
        }
        await commitWrite(ctx, real, old.raw, args.content);
        const diff = await unifiedDiff(label, old.text, toLf(args.content));
        return {
          content: `Wrote ${absolute} (+${diff.additions} -${diff.removals}).\n\n${
            diffBlock(diff)
          }`,
        };
      }),
  });
}
