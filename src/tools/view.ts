/**
 * `view`: a file's lines with numbers (crush's `%6d|text` format), a window of
 * them for big files, images as image parts for models that take them. Viewing
 * is what allows a later edit: the file's mtime is recorded in the session state.
 */
import { Buffer } from "node:buffer";
import * as path from "node:path";
import { z } from "zod";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { hasImageExtension, sniffImage } from "./fs/image.ts";
import { readLineWindow } from "./fs/lines.ts";
import { isMissing, mtimeOf } from "./fs/paths.ts";
import { readsPath, resolveForRun } from "./fs/pinned.ts";
import { looksBinary, SNIFF_BYTES } from "./fs/text.ts";

export interface ViewToolOptions {
  /** Lines shown when the call gives no limit (default 2000). */
  defaultLimit?: number;
  /** Characters kept of each line (default 2000). */
  maxLineChars?: number;
  /** Largest image sent to the model (default 5 MB). */
  maxImageBytes?: number;
}

const schema = z.object({
  file_path: z.string().min(1).describe(
    "Path of the file to read (absolute, or relative to the workspace)",
  ),
  offset: z.number().int().min(0).optional().describe(
    "Number of lines to skip before reading (0-based; default 0)",
  ),
  limit: z.number().int().min(1).optional().describe("Number of lines to read (default 2000)"),
});

const DESCRIPTION = `Read a file and show its lines with line numbers ("     1|text").
- file_path: absolute, or relative to the workspace root.
- Shows up to 2000 lines by default; for longer files page with offset (lines to skip) and limit.
- Lines longer than 2000 characters are cut, with a note.
- PNG, JPEG, GIF and WebP images are returned as images when the model accepts images.
- Binary files are refused; use ls for folders.
- You must view a file in this session before edit, multiedit or write may change it.`;

export function createViewTool(options: ViewToolOptions = {}): Tool {
  const defaultLimit = options.defaultLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;

  return defineTool({
    name: "view",
    description: DESCRIPTION,
    schema,
    access: readsPath((a) => a.file_path),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real } = await resolveForRun(args, args.file_path, ctx.workspace);
        let info: Deno.FileInfo;
        try {
          info = await Deno.stat(real);
        } catch (err) {
          if (isMissing(err)) throw new ToolFailure(await notFoundMessage(absolute));
          throw err;
        }
        if (info.isDirectory) {
          throw new ToolFailure(`Path is a directory, not a file: ${absolute}. Use ls to list it.`);
        }
        if (!info.isFile) {
          // A FIFO or device could block the read forever.
          throw new ToolFailure(`${absolute} is not a regular file (a pipe, socket or device).`);
        }
        const head = await readHead(real);
        const mime = sniffImage(head);
        if (mime !== null || (hasImageExtension(real) && looksBinary(head))) {
          if (mime === null) {
            throw new ToolFailure(`${absolute} is not a PNG, JPEG, GIF or WebP image.`);
          }
          return await viewImage(ctx, real, absolute, mime, info, maxImageBytes);
        }
        if (looksBinary(head)) {
          throw new ToolFailure(
            `${absolute} is a binary file (${info.size} bytes); view shows text files only.`,
          );
        }
        const offset = args.offset ?? 0;
        const limit = args.limit ?? defaultLimit;
        const window = await readLineWindow(real, offset, limit, maxLineChars, ctx.signal);
        if (window.lines.length === 0 && offset > 0) {
          throw new ToolFailure(
            `offset ${offset} is past the end of ${absolute}, which has ${window.total} lines.`,
          );
        }
        markViewed(ctx, real, info);
        return { content: formatWindow(window.lines, offset, window, maxLineChars) };
      }),
  });
}

function formatWindow(
  lines: string[],
  offset: number,
  window: { cut: number; more: boolean },
  maxLineChars: number,
): string {
  const numbered = lines.map((line, i) => `${String(offset + i + 1).padStart(6)}|${line}`);
  let out = "<file>\n" + (lines.length === 0 ? "(empty file)" : numbered.join("\n"));
  if (window.cut > 0) {
    out += `\n\n(${window.cut} line(s) longer than ${maxLineChars} characters were cut.)`;
  }
  if (window.more) {
    out += `\n\n(File has more lines. Use offset ${offset + lines.length} to read beyond line ` +
      `${offset + lines.length}.)`;
  }
  return out + "\n</file>";
}

async function viewImage(
  ctx: ToolContext,
  real: string,
  shown: string,
  mime: string,
  info: Deno.FileInfo,
  maxBytes: number,
): Promise<ToolOutput> {
  if (!ctx.attachments) {
    throw new ToolFailure(
      `${shown} is an image (${mime}, ${info.size} bytes), but the current model does not accept ` +
        `images, so it cannot be shown.`,
    );
  }
  if (info.size > maxBytes) {
    throw new ToolFailure(
      `${shown} is an image of ${info.size} bytes; the limit is ${maxBytes} bytes.`,
    );
  }
  const data = Buffer.from(await Deno.readFile(real)).toString("base64");
  markViewed(ctx, real, info);
  return {
    content: `Image ${shown} (${mime}, ${info.size} bytes) is attached.`,
    images: [{ type: "image", mime_type: mime, data }],
  };
}

function markViewed(ctx: ToolContext, real: string, info: Deno.FileInfo) {
  ctx.state.viewed.set(real, mtimeOf(info));
  ctx.stateChanged();
}

async function readHead(file: string): Promise<Uint8Array> {
  const handle = await Deno.open(file, { read: true });
  try {
    const buf = new Uint8Array(SNIFF_BYTES);
    let filled = 0;
    while (filled < buf.length) {
      const n = await handle.read(buf.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return buf.subarray(0, filled);
  } finally {
    handle.close();
  }
}

/** "File not found", with up to three similarly named entries of the same folder. */
async function notFoundMessage(absolute: string): Promise<string> {
  const dir = path.dirname(absolute);
  const base = path.basename(absolute).toLowerCase();
  const stem = stemOf(base);
  const similar: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const name = entry.name.toLowerCase();
      const nameStem = stemOf(name);
      const related = name.includes(stem) || (nameStem.length >= 2 && stem.includes(nameStem));
      if (related || editDistance(name, base) <= 2) {
        similar.push(path.join(dir, entry.name));
      }
    }
  } catch {
    return `File not found: ${absolute}`;
  }
  if (similar.length === 0) return `File not found: ${absolute}`;
  return `File not found: ${absolute}\n\nDid you mean one of these?\n${
    similar.sort().slice(0, 3).join("\n")
  }`;
}

/** Name without its last extension; the whole name when that would leave under 2 characters. */
function stemOf(name: string): string {
  const stem = name.replace(/\.[^.]*$/, "");
  return stem.length >= 2 ? stem : name;
}

/** Levenshtein distance, to catch typos like "confg.json". */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
