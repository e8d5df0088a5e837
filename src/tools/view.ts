/**
 * `view`: a file's lines with numbers (crush's `%6d|text` format), a window of
 * them for big files, images as image parts for models that take them. Viewing
 * is what allows a later edit: the file's mtime is recorded in the session state.
 */
import { Buffer } from "node:buffer";
import * as path from "node:path";
import * as z from "zod";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { hasImageExtension, sniffImage } from "./fs/image.ts";
import { type LineWindow, readLineWindow } from "./fs/lines.ts";
import { DEFAULT_LIMITS } from "./truncate.ts";
import { editDistance } from "../util/similar.ts";
import { isMissing, mtimeOf } from "./fs/paths.ts";
import { currentDir, readsPath, resolveForRun } from "./fs/pinned.ts";
import { looksBinary, SNIFF_BYTES } from "./fs/text.ts";

export interface ViewToolOptions {
  /** Most lines one call returns, and the default limit (default 1000). */
  maxLines?: number;
  /** Most characters one call returns, numbers and notes included (default: the tool output limit). */
  maxChars?: number;
  /** Characters kept of each line (default 2000). */
  maxLineChars?: number;
  /** Largest image sent to the model (default 5 MB). */
  maxImageBytes?: number;
}

/** Room kept for the wrapper and the notes around the numbered lines. */
const NOTES_CHARS = 500;

function schemaOf(maxLines: number) {
  return z.object({
    file_path: z.string().min(1).describe(
      "Path of the file to read",
    ),
    offset: z.number().int().min(0).optional().describe(
      "Number of lines to skip before reading (0-based; default 0)",
    ),
    limit: z.number().int().min(1).optional().describe(
      `Number of lines to read (default and at most ${maxLines})`,
    ),
  });
}

function describe(maxLines: number, maxChars: number, maxLineChars: number): string {
  return `Read a file with line numbers: "    12|text" is line 12, whose text is "text" (the number and "|" are not in the file).
- At most ${maxLines} lines and ${maxChars} characters per call, ending at a line end. When more follows, the last line says how many lines remain and the offset to call again with.
- Lines over ${maxLineChars} characters are cut, with a note.
- PNG, JPEG, GIF and WebP images come back as images when the model accepts them. Binary files are refused; use ls for folders.
- A file must be viewed in this session before edit, multiedit or write may change it.`;
}

export function createViewTool(options: ViewToolOptions = {}): Tool {
  const maxLines = options.maxLines ?? 1000;
  const maxChars = options.maxChars ?? DEFAULT_LIMITS.maxChars;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;

  return defineTool({
    name: "view",
    description: describe(maxLines, maxChars, maxLineChars),
    schema: schemaOf(maxLines),
    access: readsPath((a) => a.file_path),
    run: (args, ctx) =>
      asToolError(async () => {
        const { absolute, real } = await resolveForRun(args, args.file_path, currentDir(ctx));
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
        const limit = Math.min(args.limit ?? maxLines, maxLines);
        const window = await readLineWindow(real, offset, limit, maxLineChars, {
          signal: ctx.signal,
          // What the line costs as shown: its number, "|", its text and the line break.
          cost: (text, i) => Math.max(6, String(i + 1).length) + text.length + 2,
          budget: maxChars - NOTES_CHARS,
        });
        if (window.lines.length === 0 && offset > 0) {
          throw new ToolFailure(
            `offset ${offset} is past the end of ${absolute}, which has ${window.total} lines.`,
          );
        }
        markViewed(ctx, real, info);
        return { content: formatWindow(offset, window, maxLineChars) };
      }),
  });
}

function formatWindow(offset: number, window: LineWindow, maxLineChars: number): string {
  const { lines, total } = window;
  const numbered = lines.map((line, i) => `${String(offset + i + 1).padStart(6)}|${line}`);
  let out = "<file>\n" + (lines.length === 0 ? "(empty file)" : numbered.join("\n")) + "\n</file>";
  if (window.cut > 0) {
    out += `\n(${window.cut} line(s) longer than ${maxLineChars} characters were cut.)`;
  }
  const end = offset + lines.length;
  const shown = `Lines ${offset + 1}-${end}`;
  if (window.more) {
    const left = total === undefined ? "More lines remain" : `${total - end} more lines remain`;
    const of = total === undefined ? "" : ` of ${total}`;
    out += `\n(${shown}${of} shown. ${left}: call view with offset ${end} to continue.)`;
  } else if (offset > 0) {
    out += `\n(${shown} of ${end} shown: the end of the file.)`;
  }
  return out;
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
