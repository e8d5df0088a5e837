/**
 * Unified diffs for tool results (npm:diff), on LF text so a CRLF file's diff shows
 * the change and not a carriage return on every line. npm:diff (18 modules) is loaded
 * at the first diff: a run that edits nothing does not pay for it at start.
 */
import { truncateOutput } from "../truncate.ts";
import { loadOnce } from "../../util/load_once.ts";

const diffLib = loadOnce(() => import("diff"));

export interface DiffSummary {
  /** Unified diff text (`--- a/…`, `+++ b/…`, hunks); "" when nothing changed. */
  diff: string;
  additions: number;
  removals: number;
}

/** Most characters of a diff shown in a tool result; the file itself holds the rest. */
const DIFF_LIMITS = { maxChars: 12_000, maxLines: 400 };

/** Unified diff of `before` → `after` for the file shown as `name` (null = did not exist). */
export async function unifiedDiff(
  name: string,
  before: string | null,
  after: string,
): Promise<DiffSummary> {
  const oldText = before ?? "";
  if (oldText === after) return { diff: "", additions: 0, removals: 0 };
  const label = name.replace(/^\/+/, "");
  const { createTwoFilesPatch } = await diffLib();
  const patch = createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${label}`,
    `b/${label}`,
    oldText,
    after,
    undefined,
    undefined,
    { context: 3 },
  );
  // Drop the "=====" banner line npm:diff puts first; git-style diffs start at "---".
  const lines = patch.split("\n");
  const start = lines.findIndex((l) => l.startsWith("--- "));
  const body = lines.slice(start === -1 ? 0 : start);
  let additions = 0;
  let removals = 0;
  for (const line of body.slice(2)) {
    if (line.startsWith("+")) additions++;
    else if (line.startsWith("-")) removals++;
  }
  return { diff: body.join("\n").trimEnd(), additions, removals };
}

/** The diff as it goes into a tool result: fenced, and cut when very long. */
export function diffBlock(summary: DiffSummary): string {
  if (summary.diff === "") return "";
  return "```diff\n" + truncateOutput(summary.diff, DIFF_LIMITS) + "\n```";
}
