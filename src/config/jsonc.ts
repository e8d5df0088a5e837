/**
 * JSONC parsing that keeps the syntax tree, so every later error (a bad value, an
 * unknown key, a failed `$(cmd)`) can name `file:line:col` of the exact spot.
 */
import {
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
  stripComments,
} from "jsonc-parser";
import { ConfigError } from "../util/errors.ts";

export type JsonPath = (string | number)[];

/** ["a", "b", 0, "c"] → "a.b[0].c", as messages name a key. */
export function dotted(path: JsonPath): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : p)).join(".").replace(/\.\[/g, "[");
}

/** "a.b[0].c" or "a.b.0.c" → ["a", "b", 0, "c"]. */
export function parsePath(path: string): JsonPath {
  return path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((p) => p !== "").map((p) =>
    /^\d+$/.test(p) ? Number(p) : p
  );
}

/** One parsed config file. */
export interface ParsedFile {
  file: string;
  text: string;
  tree?: Node;
  value: Record<string, unknown>;
}

export function parseConfigText(file: string, text: string): ParsedFile {
  // A file with only whitespace or comments is an empty config.
  if (stripComments(text).trim() === "") return { file, text, value: {} };
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    throw new ConfigError(`invalid JSON: ${describeParseError(first.error)}`, {
      where: `${file}:${lineCol(text, first.offset)}`,
    });
  }
  if (tree === undefined || tree.type !== "object") {
    throw new ConfigError("a config file must hold a JSON object", {
      where: `${file}:${lineCol(text, tree?.offset ?? 0)}`,
    });
  }
  return { file, text, tree, value: getNodeValue(tree) as Record<string, unknown> };
}

/**
 * Where the value at `path` is (or the key itself when `atKey`): `file:line:col`
 * and the character offset. When the path does not exist in this file (a
 * required key is missing) the nearest enclosing node that does exist is named.
 */
export function locate(
  parsed: ParsedFile,
  path: JsonPath,
  atKey = false,
): { where: string; offset: number } {
  let offset = 0;
  if (parsed.tree) {
    for (let n = path.length; n >= 0; n--) {
      const node = nodeAt(parsed.tree, path.slice(0, n));
      if (!node) continue;
      const keyNode = atKey && n === path.length && node.parent?.type === "property"
        ? node.parent.children?.[0]
        : undefined;
      offset = (keyNode ?? node).offset;
      break;
    }
  }
  return { where: `${parsed.file}:${lineCol(parsed.text, offset)}`, offset };
}

/**
 * The node at `path`, taking the last of duplicate keys as the parsed value does
 * (jsonc-parser's findNodeAtLocation takes the first, so an error about
 * `{"a": 1, "a": "x"}` would point at the value that was not used).
 */
function nodeAt(root: Node, path: JsonPath): Node | undefined {
  let node: Node | undefined = root;
  for (const segment of path) {
    if (!node?.children) return undefined;
    if (typeof segment === "number") {
      node = node.type === "array" ? node.children[segment] : undefined;
    } else {
      const prop: Node | undefined = node.type === "object"
        ? node.children.findLast((p) => p.children?.[0]?.value === segment)
        : undefined;
      node = prop?.children?.[1];
    }
  }
  return node;
}

/** 1-based `line:col` of a character offset. */
function lineCol(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return `${line}:${offset - start + 1}`;
}

function describeParseError(code: number): string {
  const name = printParseErrorCode(code);
  const words: Record<string, string> = {
    InvalidSymbol: "unexpected character",
    InvalidNumberFormat: "invalid number",
    PropertyNameExpected: "property name expected",
    ValueExpected: "value expected",
    ColonExpected: "':' expected",
    CommaExpected: "',' expected",
    CloseBraceExpected: "'}' expected",
    CloseBracketExpected: "']' expected",
    EndOfFileExpected: "end of file expected",
    InvalidCommentToken: "invalid comment",
    UnexpectedEndOfComment: "unterminated comment",
    UnexpectedEndOfString: "unterminated string",
    UnexpectedEndOfNumber: "unterminated number",
    InvalidUnicode: "invalid unicode escape",
    InvalidEscapeCharacter: "invalid escape character",
    InvalidCharacter: "invalid character",
  };
  return words[name] ?? name;
}
