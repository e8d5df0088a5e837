/**
 * Turning what a user typed for `-s` into one session: a full uuid, a short id, or a
 * unique prefix of either. An exact match wins over prefixes; nothing or several
 * matches are usage errors (exit 2) that say what to do.
 */
import { UsageError } from "../util/errors.ts";
import type { SessionSummary } from "./store_types.ts";
import { normalizeIdInput } from "./ids.ts";

const LISTED = 10;

export function notFound(input: string): UsageError {
  return new UsageError(`session not found: ${input}`, {
    hint: "`mopac sessions list` shows the sessions of this data dir",
  });
}

/** One line per session, as in the ambiguity error and `sessions list`. */
export function describeSession(s: SessionSummary): string {
  const updated = new Date(s.updated_at).toISOString().slice(0, 16).replace("T", " ");
  return `${s.short_id}  ${s.id}  ${updated}  ${s.title ?? "(untitled)"}`;
}

/**
 * Picks the session `input` names among `candidates` (the sessions whose id or short id
 * starts with the normalized input).
 */
export function pickSession(input: string, candidates: SessionSummary[]): SessionSummary {
  const q = normalizeIdInput(input);
  if (!q) throw notFound(input);
  const matching = candidates.filter((s) => s.id.startsWith(q) || s.short_id.startsWith(q));
  const exact = matching.filter((s) => s.id === q || s.short_id === q);
  const pool = exact.length > 0 ? exact : matching;
  if (pool.length === 0) throw notFound(input);
  if (pool.length === 1) return pool[0];
  const sorted = [...pool].sort((a, b) => b.updated_at - a.updated_at);
  const lines = sorted.slice(0, LISTED).map((s) => `  ${describeSession(s)}`);
  if (sorted.length > LISTED) lines.push(`  … and ${sorted.length - LISTED} more`);
  throw new UsageError(
    `session id "${input}" is ambiguous; it matches ${pool.length} sessions:\n${lines.join("\n")}`,
    { hint: "give more characters of the id, or the full id" },
  );
}
