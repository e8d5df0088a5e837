/**
 * The rules every writing tool (edit, multiedit, write) shares: an existing file
 * may be changed only after a `view` in this session and only if it has not changed
 * on disk since; it must be UTF-8 text; a new file may be created where none (or an
 * empty one) is; and every change is written, re-stamped as viewed, recorded in the
 * session's file history and shown as a diff.
 */
import * as path from "node:path";
import { relativeInside } from "../../permission/match.ts";
import type { ToolContext, ToolOutput } from "../types.ts";
import { diffBlock, unifiedDiff } from "./diff.ts";
import { ToolFailure } from "../failure.ts";
import { isMissing, mtimeOf } from "./paths.ts";
import { currentDir, resolveForRun } from "./pinned.ts";
import { decodeUtf8Strict, looksBinary, splitStyle, type TextStyle } from "./text.ts";

/** Files larger than this are not edited in memory (use bash for those). */
const DEFAULT_MAX_EDIT_BYTES = 10 * 1024 * 1024;

export interface LoadedFile {
  /** Decoded content exactly as on disk (BOM and CRLF included). */
  raw: string;
  /** LF text without BOM: what edits match against. */
  text: string;
  style: TextStyle;
  mtime: number;
}

export interface WriteTarget {
  /** The path as the model gave it, made absolute: what messages show. */
  absolute: string;
  /** The path the gate approved, symlinks resolved: what is read and written. */
  real: string;
  /** Its stat, or null when there is no file yet. */
  info: Deno.FileInfo | null;
  /** Its name in diff headers: workspace-relative when inside it. */
  label: string;
}

/** The file a writing tool's call names, as approved by the gate (see pinned.ts). */
export async function writeTarget(
  input: { file_path: string },
  ctx: ToolContext,
): Promise<WriteTarget> {
  const { absolute, real } = await resolveForRun(input, input.file_path, currentDir(ctx));
  const info = await statTarget(real, absolute);
  return { absolute, real, info, label: relativeInside(absolute, ctx.workspace) ?? absolute };
}

/** Stat of `real`, or null when it does not exist. Directories are refused. */
async function statTarget(real: string, shown: string): Promise<Deno.FileInfo | null> {
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

/**
 * Creates `real` with `content`: allowed when the file is absent or empty (edit's and
 * multiedit's empty old_string, write to a new path). Returns the reply with a diff.
 */
export async function createFile(
  ctx: ToolContext,
  real: string,
  shown: string,
  label: string,
  info: Deno.FileInfo | null,
  content: string,
): Promise<ToolOutput> {
  if (info !== null && info.size > 0) {
    throw new ToolFailure(
      `File already exists and is not empty: ${shown}. To change it, view it and give the text ` +
        `to replace as old_string; to replace all of it, use write.`,
    );
  }
  await commitWrite(ctx, real, info === null ? null : "", content);
  const diff = await unifiedDiff(label, info === null ? null : "", content);
  return {
    content: `Created ${shown} (${diff.additions} line${diff.additions === 1 ? "" : "s"}).\n\n` +
      diffBlock(diff),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
