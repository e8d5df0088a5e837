/**
 * How secrets are kept out of everything mopac writes (session records, logs,
 * stdout, cassettes). Two ways, used together:
 *  - known values (API keys, header values, the values of env vars that config
 *    references; see sources.ts for which): a Redactor replaces each wherever it
 *    appears. The app collects the values once and applies it at each exit point;
 *    secrets learnt while running (OAuth tokens of MCP servers) are added to it.
 *  - shapes: values under credential-like keys and strings that look like tokens are
 *    masked where the values are not known (a tool call's arguments in a denial).
 */

export const REDACTED = "[REDACTED]";
/** Shorter values would match ordinary words and numbers. */
const MIN_SECRET_LENGTH = 6;

export interface CollectOptions {
  /** Values shorter than this are not searched for; default 6. */
  minLength?: number;
}

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
  /**
   * Adds a secret learnt while running (an OAuth token): from then on every holder of
   * this redactor hides it too.
   */
  add(value: string): void;
}

/**
 * A redactor for `values`. Besides each value itself it also looks for the forms a
 * value takes once written out: JSON-escaped (a key with a quote or backslash inside
 * a JSON line), and the token of an `Authorization` header (`Bearer <token>`).
 * Longest first, so a secret that contains another is replaced whole.
 */
export function collectSecrets(
  values: Iterable<string | undefined | null>,
  options: CollectOptions = {},
): Redactor {
  const min = options.minLength ?? MIN_SECRET_LENGTH;
  const needles = new Set<string>();
  const add = (s: string) => {
    if (s.length >= min) needles.add(s);
  };
  const addValue = (raw: string | undefined | null) => {
    if (typeof raw !== "string") return;
    const value = raw.trim();
    add(raw);
    add(value);
    add(JSON.stringify(value).slice(1, -1));
    const scheme = value.match(/^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i);
    if (scheme) add(scheme[1]);
  };
  for (const raw of values) addValue(raw);
  let sorted: string[] = [];
  let pattern: RegExp | null = null;
  const compile = () => {
    sorted = [...needles].sort((a, b) => b.length - a.length);
    pattern = sorted.length > 0 ? new RegExp(sorted.map(escapeRegExp).join("|"), "g") : null;
  };
  compile();

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

  return {
    redact,
    redactValue,
    heldTail,
    get size() {
      return sorted.length;
    },
    add(value: string) {
      const before = needles.size;
      addValue(value);
      if (needles.size !== before) compile();
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Longest summary kept; a denial record names the call, it does not archive it. */
export const SUMMARY_MAX = 200;

// Keys whose values are credentials whatever they contain.
const SECRET_KEY =
  /pass(word|wd|phrase)?$|secret|token|api[_-]?key|authori[sz]ation|^auth$|credential|cookie|private[_-]?key/i;
// Values that look like credentials wherever they appear, and what replaces them.
const SECRET_VALUE: Array<[RegExp, (match: string, lead: string) => string]> = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi, (_m, scheme) => `${scheme} ***`],
  [
    /\b(sk|pk|rk|ghp|gho|ghs|ghu|github_pat|xox[abpr]|glpat)[-_][A-Za-z0-9_-]{8,}/g,
    (_m, p) => `${p}-***`,
  ],
  [/\b(AKIA)[0-9A-Z]{16}\b/g, (_m, p) => `${p}***`],
  [/(:\/\/[^/\s:@]+:)[^@\s/]+@/g, (_m, user) => `${user}***@`],
];

/**
 * One line describing a tool input: compact JSON, values under secret-sounding keys
 * and credential-shaped strings masked, cut to SUMMARY_MAX characters. An optional
 * `redact` (the run's known secret values) is applied too.
 */
export function summarizeInput(input: unknown, redact?: (s: string) => string): string {
  let text: string;
  try {
    text = typeof input === "string" ? input : JSON.stringify(input, maskKeys) ?? String(input);
  } catch {
    text = String(input);
  }
  text = maskValues(redact ? redact(text) : text).replace(/\s+/g, " ").trim();
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}

function maskKeys(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  // Strings only: `max_tokens: 100` is not a secret.
  if (key !== "" && typeof value === "string" && SECRET_KEY.test(key)) return "***";
  return value;
}

function maskValues(text: string): string {
  let out = text;
  for (const [pattern, replace] of SECRET_VALUE) {
    out = out.replace(pattern, (match: string, lead: string) => replace(match, lead));
  }
  return out;
}

/** Field and header names whose values a cassette never keeps, whatever they hold. */
export const CREDENTIAL_FIELD =
  /^(api[-_]?key|x-api-key|authorization|proxy-authorization|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|token|cookie|set-cookie)$/i;
