/**
 * Session ids: a time-ordered UUID (version 7, RFC 9562) names the file, and a short
 * hash of it is what users see and type. Ids sort by creation time, so a directory
 * listing or an index scan is already in order. What a user typed for `-s` (a full
 * uuid, a short id, or a unique prefix of either) picks one session: an exact match
 * wins over prefixes; nothing or several matches are usage errors (exit 2).
 */
import { UsageError } from "../util/errors.ts";
import { sha256Hex } from "../util/sha256.ts";
import type { SessionSummary } from "./types.ts";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Length of the short id in hex digits (32 bits: collisions stay rare below ~10⁴ sessions). */
const SHORT_ID_LENGTH = 8;

let lastMs = -1;
let counter = 0;

/**
 * A new UUIDv7. Within one millisecond the 12-bit `rand_a` field counts up from a
 * random start, so ids made in one process are strictly increasing.
 */
export function newSessionId(now: number = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = Math.max(0, Math.floor(now));
  if (ms <= lastMs) {
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      // Counter exhausted: borrow the next millisecond rather than repeat an id.
      ms = lastMs + 1;
      counter = bytes[6] & 0x3ff;
    }
  } else {
    counter = ((bytes[6] << 8) | bytes[7]) & 0x3ff; // leave headroom to count up
  }
  lastMs = ms;
  // 48-bit big-endian milliseconds (split: JS bit operators are 32-bit).
  const high = Math.floor(ms / 2 ** 16);
  const low = ms % 2 ** 16;
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | ((counter >>> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/** The short id users see: the first 8 hex digits of SHA-256 of the uuid. */
export function shortIdOf(id: string): string {
  return sha256Hex(id).slice(0, SHORT_ID_LENGTH);
}

export function isSessionId(s: string): boolean {
  return UUID_RE.test(s);
}

/** Milliseconds encoded in a UUIDv7 (undefined for other strings). */
export function timeOfSessionId(id: string): number | undefined {
  if (!isSessionId(id) || id[14] !== "7") return undefined;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** What a user may type for `-s`: hex digits and dashes (anything else can match nothing). */
export function normalizeIdInput(input: string): string | undefined {
  const s = input.trim().toLowerCase();
  return /^[0-9a-f-]+$/.test(s) ? s : undefined;
}

/** `--session-id` named a session that exists: a new session's id must be new. */
export function idTaken(id: string): UsageError {
  return new UsageError(`--session-id ${id}: a session with this id exists already`, {
    hint: `continue it with -s ${id}, or fork it with -s ${id} --fork`,
  });
}

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
