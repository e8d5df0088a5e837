/**
 * Reads what `export -p` prints back into variables. bash lists each exported
 * variable as `declare -x NAME="value"` (`export NAME="value"` in POSIX mode), the
 * value in double quotes with `"`, `\`, `$` and `` ` `` escaped, or as `$'…'` with
 * ANSI-C escapes when it holds characters that do not print. One builtin call lists
 * them all, where walking every variable name with bash builtins cost about 1.7 ms a
 * command. process.ts uses it on bash ≥ 5.2 in a C or UTF-8 locale only: older bash
 * quotes arrays and control characters differently, and in other multibyte locales a
 * character's second byte can be a backslash that this reader would take for one.
 *
 * Arrays (never in a child's environment), namerefs, names exported without a value
 * and names that are not identifiers (inherited from bash's own environment) are
 * skipped. Anything else the reader does not know makes the whole listing unreadable
 * (undefined): a state that cannot be read is not carried over.
 */
import { decodeAnsiC, KNOWN_ESCAPE } from "./ansi_c.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseExportListing(text: string): Record<string, string> | undefined {
  const vars: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    if (text[i] === "\n") {
      i++;
      continue;
    }
    let flags = "x";
    if (text.startsWith("declare -", i)) {
      const space = text.indexOf(" ", i + 9);
      if (space < 0) return undefined;
      flags = text.slice(i + 9, space);
      i = space + 1;
    } else if (text.startsWith("export ", i)) {
      i += 7;
      // POSIX mode marks arrays: `export -a NAME=(…)`.
      const opts = /^-[a-zA-Z]+ /.exec(text.slice(i, i + 12));
      if (opts) {
        flags += opts[0].slice(1, -1);
        i += opts[0].length;
      }
    } else {
      return undefined;
    }
    let nameEnd = i;
    while (nameEnd < text.length && text[nameEnd] !== "=" && text[nameEnd] !== "\n") nameEnd++;
    const name = text.slice(i, nameEnd);
    if (name === "" || !/^[a-zA-Z-]+$/.test(flags)) return undefined;
    i = nameEnd;
    if (text[i] !== "=") continue; // exported, no value: not in a child's environment
    i++;
    const value = readValue(text, i);
    if (!value) return undefined;
    i = value.end;
    if (i < text.length && text[i] !== "\n") return undefined;
    // Names that are not identifiers come from the environment bash started with.
    const skip = /[aAn]/.test(flags) || value.text === undefined || !NAME.test(name);
    if (!skip) vars[name] = value.text!;
  }
  return vars;
}

/** The value starting at `at`: its text (undefined for an array) and where it ends. */
function readValue(text: string, at: number): { text?: string; end: number } | undefined {
  if (text[at] === '"') return readDoubleQuoted(text, at + 1);
  if (text.startsWith("$'", at)) return readAnsiC(text, at + 2);
  if (text[at] === "(") return skipArray(text, at + 1);
  // A bare word (no quoting needed): up to the end of the line.
  const end = text.indexOf("\n", at);
  const stop = end < 0 ? text.length : end;
  const word = text.slice(at, stop);
  return /^[A-Za-z0-9_@%+=:,./-]*$/.test(word) ? { text: word, end: stop } : undefined;
}

function readDoubleQuoted(text: string, at: number): { text: string; end: number } | undefined {
  let out = "";
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { text: out, end: i + 1 };
    if (c === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) {
      out += text[++i];
    } else {
      out += c;
    }
  }
  return undefined;
}

/** `$'…'` from `at` (after its `$'`): its end found, escapes checked, then decoded. */
function readAnsiC(text: string, at: number): { text: string; end: number } | undefined {
  for (let i = at; i < text.length; i++) {
    if (text[i] === "'") return { text: decodeAnsiC(text.slice(at, i)), end: i + 1 };
    if (text[i] !== "\\") continue;
    // bash writes only escapes it reads back; anything else is not its listing.
    if (!KNOWN_ESCAPE.test(text.slice(i + 1, i + 3))) return undefined;
    i++;
  }
  return undefined;
}

/** `([0]="a" [1]=$'b')`: skipped to its closing parenthesis, quotes followed. */
function skipArray(text: string, at: number): { end: number } | undefined {
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === ")") return { end: i + 1 };
    if (c === '"') {
      const q = readDoubleQuoted(text, i + 1);
      if (!q) return undefined;
      i = q.end - 1;
    } else if (c === "$" && text[i + 1] === "'") {
      const q = readAnsiC(text, i + 2);
      if (!q) return undefined;
      i = q.end - 1;
    } else if (c === "\\") {
      i++;
    }
  }
  return undefined;
}
