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
import { SIMPLE_ESCAPES } from "./ansi_c_escapes.ts";

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

/**
 * `$'…'`: escapes become characters, octal and hex escapes become bytes, and the
 * bytes decode as UTF-8 (as the rest of the channel does).
 */
function readAnsiC(text: string, at: number): { text: string; end: number } | undefined {
  const bytes = new ByteBuilder();
  const enc = new TextEncoder();
  const addText = (s: string) => bytes.add(enc.encode(s));
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === "'") return { text: new TextDecoder().decode(bytes.take()), end: i + 1 };
    if (c !== "\\") {
      // A run of plain text at once: a pair of UTF-16 halves must not be encoded apart.
      let end = i + 1;
      while (end < text.length && text[end] !== "\\" && text[end] !== "'") end++;
      addText(text.slice(i, end));
      i = end - 1;
      continue;
    }
    const e = text[++i];
    if (e === undefined) return undefined;
    if (e in SIMPLE_ESCAPES) {
      addText(SIMPLE_ESCAPES[e]);
    } else if (/[0-7]/.test(e)) {
      const digits = /^[0-7]{1,3}/.exec(text.slice(i, i + 3))![0];
      bytes.byte(parseInt(digits, 8) & 0xff);
      i += digits.length - 1;
    } else if (e === "x" || e === "u" || e === "U") {
      const max = e === "x" ? 2 : e === "u" ? 4 : 8;
      const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(text.slice(i + 1, i + 1 + max));
      if (!digits) return undefined;
      const n = parseInt(digits[0], 16);
      if (e === "x") bytes.byte(n);
      else addText(String.fromCodePoint(Math.min(n, 0x10ffff)));
      i += digits[0].length;
    } else if (e === "c" && i + 1 < text.length) {
      bytes.byte(text.charCodeAt(++i) & 0x1f);
    } else {
      return undefined;
    }
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

/** Bytes appended in pieces of any size (a value may be megabytes). */
class ByteBuilder {
  #buf = new Uint8Array(256);
  #size = 0;

  add(piece: Uint8Array): void {
    if (this.#size + piece.length > this.#buf.length) {
      const grown = new Uint8Array(Math.max(this.#size + piece.length, this.#buf.length * 2));
      grown.set(this.#buf.subarray(0, this.#size));
      this.#buf = grown;
    }
    this.#buf.set(piece, this.#size);
    this.#size += piece.length;
  }

  byte(b: number): void {
    this.add(Uint8Array.of(b));
  }

  take(): Uint8Array {
    return this.#buf.subarray(0, this.#size);
  }
}
