/**
 * The rules every writing tool shares: an existing file may be changed only after
 * a `view` in this session and only if it has not changed on disk since; it must
 * be UTF-8 text; and every change is written, re-stamped as viewed and recorded in
 * the session's file history.
 */
import * as path from "node:path";
import type { ToolContext } from "../types.ts";
import { ToolFailure } from "./failure.ts";
import { isMissing, mtimeOf } from "./paths.ts";
import { decodeUtf8Strict, looksBinary, splitStyle, type TextStyle } from "./text.ts";

/** Files larger than this are not edited in memory (use bash for those). */
export const DEFAULT_MAX_EDIT_BYTES = 10 * 1024 * 1024;

export interface LoadedFile {
  /** Decoded content exactly as on disk (BOM and CRLF included). */
  raw: string;
  /** LF text without BOM: what edits match against. */
  text: string;
  style: TextStyle;
  mtime: number;
}

/** Stat of `real`, or null when it does not exist. Directories are refused. */
export async function statTarget(real: string, shown: string): Promise<Deno.FileInfo | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
  if (info.isDirectory) throw new ToolFailure(`Path is a directory, not a file: ${shown}`);
  if (!info.isFile) {
    throw new ToolFailure(`${shown} is not a regular file (a pipe, socket or device).`);
  }
  return info;
}

/** Refuses unless `real` was viewed in this session and is unchanged since. */
export function requireFreshView(
  ctx: ToolContext,
  real: string,
  info: Deno.FileInfo,
  shown: string,
) {
  const seen = ctx.state.viewed.get(real);
  if (seen === undefined) {
    throw new ToolFailure(
      `You must view ${shown} before changing it (it exists and was not read in this session). ` +
        `Call view on it first.`,
    );
  }
  const now = mtimeOf(info);
  if (now !== seen) {
    throw new ToolFailure(
      `${shown} was modified since it was last read (modified ${iso(now)}, last read ${
        iso(seen)
      }). ` +
        `View it again before changing it.`,
    );
  }
}

/** Reads an existing file for editing; refuses binary, non-UTF-8 and oversized files. */
export async function loadText(
  real: string,
  info: Deno.FileInfo,
  shown: string,
  maxBytes = DEFAULT_MAX_EDIT_BYTES,
): Promise<LoadedFile> {
  if (info.size > maxBytes) {
    throw new ToolFailure(
      `${shown} is too large to edit here (${info.size} bytes, limit ${maxBytes}). ` +
        `Use the bash tool (e.g. sed) for files this size.`,
    );
  }
  const bytes = await Deno.readFile(real);
  if (looksBinary(bytes)) {
    throw new ToolFailure(`${shown} is a binary file; it cannot be edited as text.`);
  }
  const raw = decodeUtf8Strict(bytes);
  if (raw === null) {
    throw new ToolFailure(
      `${shown} is not valid UTF-8; editing it as text would corrupt it. Use the bash tool instead.`,
    );
  }
  const { text, style } = splitStyle(raw);
  return { raw, text, style, mtime: mtimeOf(info) };
}

/**
 * Writes `after` to `real` (creating parent folders), marks the new version as
 * viewed so the model can keep editing, and records the change.
 */
export async function commitWrite(
  ctx: ToolContext,
  real: string,
  before: string | null,
  after: string,
): Promise<void> {
  if (before === null) await Deno.mkdir(path.dirname(real), { recursive: true });
  await Deno.writeTextFile(real, after);
  const info = await Deno.stat(real);
  ctx.state.viewed.set(real, mtimeOf(info));
  ctx.recordChange({ path: real, before, after });
  ctx.stateChanged();
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
