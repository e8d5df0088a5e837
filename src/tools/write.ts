/**
 * `write`: put whole content into a file, creating parent folders. Replacing an
 * existing file needs a prior view in this session and an unchanged file, like
 * edit, so the model never overwrites what it has not seen.
 */
import { z } from "zod";
import type { Tool } from "./types.ts";
import { jsonSchemaOf, parseArgs } from "./fs/args.ts";
import { diffBlock, unifiedDiff } from "./fs/diff.ts";
import { commitWrite, loadText, requireFreshView, statTarget } from "./fs/editable.ts";
import { asToolError } from "./fs/failure.ts";
import { resolveForAccess, resolveForRun } from "./fs/pinned.ts";
import { diffLabel, type EditToolOptions } from "./edit.ts";

const schema = z.object({
  file_path: z.string().min(1).describe(
    "Path of the file to write (absolute, or relative to the workspace)",
  ),
  content: z.string().describe("The complete new content of the file"),
});
export type WriteInput = z.output<typeof schema>;

const DESCRIPTION = `Write a whole file: create it, or replace all of its content.
- Parent folders are created as needed.
- Replacing an existing file requires that you viewed it in this session and that it has not changed since.
- content is written exactly as given (line endings included). For changes to part of a file prefer edit or multiedit.
- The result shows a unified diff against the previous content.`;

export function createWriteTool(options: EditToolOptions = {}): Tool {
  return {
    name: "write",
    description: DESCRIPTION,
    parameters: jsonSchemaOf(schema),
    parse: (input) => parseArgs(schema, input),
    async access(input, ctx) {
      const args = input as WriteInput;
      const { real } = await resolveForAccess(args, args.file_path, ctx.workspace);
      return { reads: [real], writes: [real] };
    },
    run: (input, ctx) =>
      asToolError(async () => {
        const args = input as WriteInput;
        const { absolute, real } = await resolveForRun(args, args.file_path, ctx.workspace);
        const info = await statTarget(real, absolute);
        const label = diffLabel(ctx, absolute);
        if (info === null) {
          await commitWrite(ctx, real, null, args.content);
          const diff = unifiedDiff(label, null, args.content);
          const lines = `${diff.additions} line${diff.additions === 1 ? "" : "s"}`;
          return { content: `Created ${absolute} (${lines}).\n\n${diffBlock(diff)}` };
        }
        requireFreshView(ctx, real, info, absolute);
        const old = await loadText(real, info, absolute, options.maxFileBytes);
        if (old.raw === args.content) {
          return { content: `${absolute} already has exactly this content; nothing was written.` };
        }
        await commitWrite(ctx, real, old.raw, args.content);
        const diff = unifiedDiff(label, old.text, args.content.replaceAll("\r\n", "\n"));
        return {
          content: `Wrote ${absolute} (+${diff.additions} -${diff.removals}).\n\n${
            diffBlock(diff)
          }`,
        };
      }),
  };
}
