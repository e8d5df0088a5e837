/**
 * bash's `$'…'` quoting, decoded as bash does it: the escapes make bytes (`\303\251`
 * is the two bytes of "é", `\xff` one byte that is no UTF-8), which a program reads as
 * UTF-8. Shared by the policy's reading of commands (words.ts), where a path spelled
 * with octal escapes must be the path bash opens, and by the reading of `export -p`
 * (export_listing.ts).
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** One escape bash decodes (what follows a backslash); others keep their backslash. */
export const KNOWN_ESCAPE =
  /^(?:[abeEfnrtv\\'"?]|[0-7]|x[0-9a-fA-F]|u[0-9a-fA-F]|U[0-9a-fA-F]|c.)/s;

/** Decodes the body of `$'…'` (without its quotes). */
export function decodeAnsiC(raw: string): string {
  const bytes = new ByteBuilder();
  const enc = new TextEncoder();
  const text = (s: string) => bytes.add(enc.encode(s));
  let i = 0;
  while (i < raw.length) {
    const slash = raw.indexOf("\\", i);
    // A run of plain text at once: a pair of UTF-16 halves must not be encoded apart.
    text(raw.slice(i, slash < 0 || slash + 1 >= raw.length ? raw.length : slash));
    if (slash < 0 || slash + 1 >= raw.length) break;
    const c = raw[slash + 1];
    i = slash + 2;
    if (c in SIMPLE_ESCAPES) {
      text(SIMPLE_ESCAPES[c]);
    } else if (c >= "0" && c <= "7") {
      const m = /^[0-7]{1,3}/.exec(raw.slice(slash + 1, slash + 4))![0];
      bytes.byte(parseInt(m, 8) & 0xff);
      i = slash + 1 + m.length;
    } else if (c === "x" || c === "u" || c === "U") {
      const max = c === "x" ? 2 : c === "u" ? 4 : 8;
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(raw.slice(i, i + max));
      if (!m) {
        text("\\" + c);
        continue;
      }
      const n = parseInt(m[0], 16);
      if (c === "x") bytes.byte(n);
      else text(String.fromCodePoint(Math.min(n, 0x10ffff)));
      i += m[0].length;
    } else if (c === "c" && i < raw.length) {
      const x = raw[i++];
      bytes.byte(x === "?" ? 0x7f : x.toUpperCase().charCodeAt(0) & 0x1f);
    } else {
      text("\\" + c);
    }
  }
  return new TextDecoder().decode(bytes.take());
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
