/**
 * What happens around a denial: a short, secret-free summary of the refused call
 * for the session and the `result` event, and the `--on-deny` policy that tells the
 * loop whether to go on.
 */
import { UsageError } from "../util/errors.ts";

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
 * `redact` (the run's known secret values, see secrets.ts) is applied too.
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

/** `--on-deny`: continue (default), fail (go on, exit 3 at the end), stop (exit 3 at once). */
export type OnDeny = "continue" | "fail" | "stop";

const ON_DENY_MODES: readonly OnDeny[] = ["continue", "fail", "stop"];

/** The `--on-deny` flag's value; not given means `continue`. */
export function parseOnDeny(value: string | undefined): OnDeny {
  if (value === undefined) return "continue";
  if ((ON_DENY_MODES as readonly string[]).includes(value)) return value as OnDeny;
  throw new UsageError(`unknown --on-deny mode '${value}'`, {
    hint: "use continue, fail or stop",
  });
}

/** What the loop does right after a denial. */
export function afterDenial(policy: OnDeny): "continue" | "stop" {
  return policy === "stop" ? "stop" : "continue";
}

/** Whether a run that otherwise finished ends as a gate failure (exit 3). */
export function failsAtEnd(policy: OnDeny, denials: number): boolean {
  return denials > 0 && policy !== "continue";
}
