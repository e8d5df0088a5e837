/**
 * `-c KEY=VALUE`: one config value set on the command line, as its own layer named
 * `-c KEY` (what `config show --sources` prints and what a validation error names).
 * KEY is a dotted path of object keys (`agents.coder.bash.deny`; a key with a dot in
 * it is quoted: `providers."my.gw".base_url`); VALUE is JSON when it reads as JSON
 * (`120`, `true`, `["git push"]`, `{"a": 1}`, `"quoted"`), else the text as it is.
 * A VALUE that starts like a JSON array, object or string must be valid JSON: a
 * typo there is an error, not a string. Nothing in it is expanded (`$VAR` is the
 * shell's business). The layer is the operator's, like every flag.
 */
import { parse as parseJsonc, type ParseError, printParseErrorCode } from "jsonc-parser";
import { UsageError } from "../util/errors.ts";
import type { Layer } from "./layers.ts";

/** The flag as users type it. */
export const SETTING_FLAG = "-c";

/** Keys that would reach an object's prototype instead of a config key. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

export function settingLayer(text: string): Layer {
  const eq = text.indexOf("=");
  if (eq <= 0) {
    throw new UsageError(`${SETTING_FLAG} ${text}: expected KEY=VALUE`, {
      hint: `e.g. ${SETTING_FLAG} options.request_timeout=120 or ` +
        `${SETTING_FLAG} 'agents.coder.bash.deny=["git push*"]'`,
    });
  }
  const key = text.slice(0, eq).trim();
  const path = keyPath(key);
  const name = `${SETTING_FLAG} ${path.map(showSegment).join(".")}`;
  return { name, value: nestPath(path, settingValue(text.slice(eq + 1), name)) };
}

/** `a.b."c.d"` → ["a", "b", "c.d"]. */
function keyPath(key: string): string[] {
  const path: string[] = [];
  let i = 0;
  while (i <= key.length) {
    let segment: string;
    if (key[i] === '"') {
      const end = key.indexOf('"', i + 1);
      if (end < 0) throw badKey(key, "an unclosed quote");
      segment = key.slice(i + 1, end);
      i = end + 1;
      if (i < key.length && key[i] !== ".") throw badKey(key, "text after a quoted key");
    } else {
      const end = key.indexOf(".", i);
      segment = key.slice(i, end < 0 ? key.length : end);
      i = end < 0 ? key.length : end;
      if (/[\[\]]/.test(segment)) {
        throw badKey(key, "an array index", "set the whole array: -c 'KEY=[…]'");
      }
    }
    if (segment === "") throw badKey(key, "an empty key");
    if (FORBIDDEN.has(segment)) throw badKey(key, `the key "${segment}"`);
    path.push(segment);
    i++; // past the dot
  }
  return path;
}

function badKey(key: string, what: string, hint?: string): UsageError {
  return new UsageError(`${SETTING_FLAG} ${key}: the key has ${what}`, {
    hint: hint ?? "KEY is a dotted path such as agents.coder.max_turns",
  });
}

function showSegment(segment: string): string {
  return /^[A-Za-z0-9_$-]+$/.test(segment) ? segment : JSON.stringify(segment);
}

function settingValue(raw: string, name: string): unknown {
  const text = raw.trim();
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: true });
  if (text !== "" && errors.length === 0) return value;
  // Something meant as JSON must be JSON; anything else is a plain string.
  if (/^[\[{"]/.test(text)) {
    const first = errors[0];
    throw new UsageError(
      `${name}: the value is not valid JSON (${
        first ? printParseErrorCode(first.error) : "empty"
      } at character ${(first?.offset ?? 0) + 1})`,
      { hint: 'quote the whole KEY=VALUE for the shell, e.g. -c \'KEY=["a", "b"]\'' },
    );
  }
  return raw;
}

function nestPath(path: string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) out = { [path[i]]: out };
  return out as Record<string, unknown>;
}
