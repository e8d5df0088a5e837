/**
 * Turns parsed words into the strings bash would pass to a program, when that can
 * be known without running anything: quotes removed, backslash escapes and `$'…'`
 * sequences decoded. A word with an expansion (`$X`, `$(…)`, `$((…))`, `<(…)`)
 * is dynamic; a word with unquoted glob or brace characters may become other
 * words, so it is flagged as expanding.
 */
import {
  type DblQuoted,
  type Lit,
  type Node,
  nodeType,
  type ParamExp,
  type SglQuoted,
  type Word,
} from "./sh_syntax.ts";
import { decodeAnsiC } from "./ansi_c.ts";

export interface ResolvedWord {
  /** The value after quote removal when static; the source text otherwise. */
  value: string;
  /** No part of the word is expanded at run time. */
  static: boolean;
  /** Unquoted `*`, `?`, `[` or `{…}`: bash may replace the word by file names or several words. */
  expands: boolean;
  /** The word as written. */
  text: string;
  /** Starts with an unquoted `~`: bash replaces it by a home folder (`~`, `~/x`, `~root`, `~+`). */
  tilde?: boolean;
  /**
   * For a dynamic word: the value with each run-time part replaced by one NUL
   * (`"$HOME"/x` is `\0/x`), and the names of the parameters it expands.
   */
  skeleton?: string;
  params?: string[];
  /**
   * For a dynamic word ending in a static `/name` (`$HOME/bin/tool`): that name.
   * The directory is unknown but the program's name is not.
   */
  basename?: string;
}

/** The script's text addressed by the parser's byte offsets (UTF-8), not UTF-16 indexes. */
export class SourceText {
  readonly #bytes: Uint8Array;
  readonly #ascii: boolean;
  constructor(readonly text: string) {
    this.#bytes = new TextEncoder().encode(text);
    this.#ascii = this.#bytes.length === text.length;
  }
  of(node: Node): string {
    const start = node.Pos().Offset();
    const end = node.End().Offset();
    if (this.#ascii) return this.text.slice(start, end);
    return new TextDecoder().decode(this.#bytes.subarray(start, end));
  }
}

export function resolveWord(word: Word, src: SourceText): ResolvedWord {
  let value = "";
  let isStatic = true;
  let expands = false;
  /** The static text after the last dynamic part. */
  let tail = "";
  const first = word.Parts[0];
  const tilde = first !== undefined && nodeType(first) === "Lit" &&
    (first as Lit).Value.startsWith("~");
  let skeleton = "";
  const params: string[] = [];
  const dynamicPart = (node: Node) => {
    isStatic = false;
    tail = "";
    skeleton += "\0";
    const name = nodeType(node) === "ParamExp" ? (node as ParamExp).Param?.Value : undefined;
    if (name) params.push(name);
  };
  for (const part of word.Parts) {
    const type = nodeType(part);
    if (type === "Lit") {
      const lit = unescapeUnquoted((part as Lit).Value);
      value += lit.value;
      tail += lit.value;
      skeleton += lit.value;
      if (lit.expands) expands = true;
    } else if (type === "SglQuoted") {
      const q = part as SglQuoted;
      const v = q.Dollar ? decodeAnsiC(q.Value) : q.Value;
      value += v;
      tail += v;
      skeleton += v;
    } else if (type === "DblQuoted") {
      for (const inner of (part as DblQuoted).Parts) {
        if (nodeType(inner) === "Lit") {
          const v = unescapeDoubleQuoted((inner as Lit).Value);
          value += v;
          tail += v;
          skeleton += v;
        } else {
          dynamicPart(inner);
        }
      }
    } else {
      // ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp: known only at run time.
      dynamicPart(part);
      if (type === "ExtGlob" || type === "BraceExp") expands = true;
    }
  }
  const text = src.of(word);
  const extra = tilde ? { tilde } : {};
  if (isStatic) return { value, static: true, expands, text, ...extra };
  const slash = tail.lastIndexOf("/");
  const basename = slash >= 0 && slash < tail.length - 1 ? tail.slice(slash + 1) : undefined;
  return {
    value: text,
    static: false,
    expands,
    text,
    skeleton,
    params,
    ...extra,
    ...(basename ? { basename } : {}),
  };
}

/** Backslash removal outside quotes; notes unescaped glob and brace characters. */
function unescapeUnquoted(raw: string): { value: string; expands: boolean } {
  let value = "";
  let expands = false;
  let braceOpen = false;
  let bracketOpen = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "\\") {
      i++;
      if (i < raw.length && raw[i] !== "\n") value += raw[i];
      continue;
    }
    // `[` alone (the test command) is literal; only a closed `[…]` is a glob.
    if (c === "*" || c === "?") expands = true;
    if (c === "[") bracketOpen = true;
    if (c === "]" && bracketOpen) expands = true;
    if (c === "{") braceOpen = true;
    if (c === "}" && braceOpen) expands = true;
    value += c;
  }
  return { value, expands };
}

/** Inside "…" a backslash only escapes $ ` " \ and newline. */
function unescapeDoubleQuoted(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}
