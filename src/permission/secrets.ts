/**
 * Keeps known secret values (API keys, header values, the values of env vars that
 * config references) out of everything mopac writes: session records, logs, stdout.
 * The app collects the values once and applies the redactor at each exit point.
 */

export const REDACTED = "[REDACTED]";
/** Shorter values would match ordinary words and numbers. */
const MIN_SECRET_LENGTH = 6;

export interface Redactor {
  /** The text with every known secret replaced by [REDACTED]. */
  redact(text: string): string;
  /** A deep copy of a JSON-like value with every string redacted (keys too). */
  redactValue<T>(value: T): T;
  /**
   * Length of the longest end of `text` that is the start of a secret but not a whole
   * one: text streamed in pieces holds that much back until the next piece shows
   * whether a secret is being spelled out across the boundary.
   */
  heldTail(text: string): number;
  /** Number of distinct strings searched for. */
  readonly size: number;
}

/**
 * A redactor for `values`. Besides each value itself it also looks for the forms a
 * value takes once written out: JSON-escaped (a key with a quote or backslash inside
 * a JSON line), and the token of an `Authorization` header (`Bearer <token>`).
 * Longest first, so a secret that contains another is replaced whole.
 */
export function collectSecrets(values: Iterable<string | undefined | null>): Redactor {
  const needles = new Set<string>();
  const add = (s: string) => {
    if (s.length >= MIN_SECRET_LENGTH) needles.add(s);
  };
  for (const raw of values) {
    if (typeof raw !== "string") continue;
    const value = raw.trim();
    add(raw);
    add(value);
    add(JSON.stringify(value).slice(1, -1));
    const scheme = value.match(/^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i);
    if (scheme) add(scheme[1]);
  }
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  const pattern = sorted.length > 0 ? new RegExp(sorted.map(escapeRegExp).join("|"), "g") : null;

  const redact = (text: string): string =>
    pattern && typeof text === "string" ? text.replace(pattern, REDACTED) : text;

  const redactValue = <T>(value: T): T => {
    if (!pattern) return value;
    if (typeof value === "string") return redact(value) as T;
    if (Array.isArray(value)) return value.map(redactValue) as T;
    if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[redact(k)] = redactValue(v);
      return out as T;
    }
    return value;
  };

  const heldTail = (text: string): number => {
    let longest = 0;
    for (const needle of sorted) {
      // Only ends longer than what is already found, and shorter than the whole secret.
      for (let k = Math.min(needle.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(needle.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  };

  return { redact, redactValue, heldTail, size: sorted.length };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
