/**
 * The bash parser: mvdan/sh (the parser crush embeds) through its JavaScript
 * build `npm:mvdan-sh`. It is synchronous and gives the full typed syntax tree, once
 * loaded (`loadShellParser`: the package is imported at the first script that needs it).
 * This file (and sh_package.ts, which imports it) alone knows the package: it types the few node
 * fields the shell policy reads and finds operator codes by parsing samples, so
 * nothing depends on the package's internal numbering.
 */
import { loadOnce } from "../../util/load_once.ts";

export interface Pos {
  Offset(): number;
}
export interface Node {
  Pos(): Pos;
  End(): Pos;
}
export interface Lit extends Node {
  Value: string;
}
export interface SglQuoted extends Node {
  /** `$'…'` (ANSI-C quoting) rather than `'…'`. */
  Dollar: boolean;
  Value: string;
}
export interface DblQuoted extends Node {
  Parts: Node[];
}
export interface Word extends Node {
  Parts: Node[];
}
export interface CallExpr extends Node {
  Assigns: Assign[];
  Args: Word[];
}
/** `NAME=value`, `NAME+=value`, `NAME[i]=value`, `NAME=(…)`; in `export`, also a bare word. */
export interface Assign extends Node {
  /** `NAME[i]=…`: the subscript, an arithmetic expression. */
  Index: Node | null;
  /** Absent for a bare word of a declaration (`export "$X"`, `declare -n`). */
  Name: Lit | null;
  Value: Word | null;
  /** A word of a declaration with no `=` (a name or an option, e.g. `export B`, `-x`). */
  Naked: boolean;
}
/** `export`, `declare`, `typeset`, `local`, `readonly`, `nameref` with their arguments. */
export interface DeclClause extends Node {
  Variant: Lit;
  Args: Assign[];
}
export interface ParamExp extends Node {
  Param: Lit | null;
  Exp: { Op: number; Word: Word | null } | null;
  /** `${!x}` (and `${!x[@]}`, `${!prefix*}`, told apart by Index and Names). */
  Excl: boolean;
  /** `${#x}`. */
  Length: boolean;
  /** `${a[i]}`: an arithmetic expression (or `@`, `*`). */
  Index: Node | null;
  /** `${!prefix*}` / `${!prefix@}`. */
  Names: number;
  /** `${s:offset:length}`: arithmetic expressions. */
  Slice: { Offset: Node | null; Length: Node | null } | null;
}
/** `$((…))`, `$[…]` and `((…))`. */
export interface ArithmRoot extends Node {
  X: Node;
}
/** `for ((init; cond; post))`. */
export interface CStyleLoop extends Node {
  Init: Node | null;
  Cond: Node | null;
  Post: Node | null;
}
/** `[[ x OP y ]]` and `[[ OP x ]]`. */
export interface TestNode extends Node {
  Op: number;
  X: Node;
  Y?: Node;
}
/** The loop variable of `for NAME in …` and `select NAME in …`. */
export interface WordIter extends Node {
  Name: Lit;
}
export interface ArithmNode extends Node {
  Op: number;
  X: Node;
}
export interface Stmt extends Node {
  Cmd: Node | null;
  Redirs: Redirect[];
}
export interface Redirect extends Node {
  Op: number;
  /** The file descriptor written before the operator (`2>`), if any. */
  N: Lit | null;
  Word: Word | null;
  Hdoc: Word | null;
}
export interface BinaryCmd extends Node {
  Op: number;
  X: Stmt;
  Y: Stmt;
}
export interface File extends Node {
  Stmts: Stmt[];
}

interface Syntax {
  NewParser(...options: unknown[]): { Parse(src: string, name: string): File };
  Variant(lang: unknown): unknown;
  LangBash: unknown;
  NodeType(node: Node): string;
  Walk(node: Node, fn: (node: Node | null) => boolean): void;
}

/** The package's syntax API and its bash parser, once loaded. */
let loaded: { syntax: Syntax; parser: { Parse(src: string, name: string): File } } | undefined;

/**
 * Loads the package (sh_package.ts) once; everything below that parses or walks needs
 * it loaded first and throws ParserNotLoadedError otherwise.
 */
export const loadShellParser = loadOnce(async () => {
  const mvdan = (await import("./sh_package.ts")).default;
  const syntax = (mvdan as unknown as { syntax: Syntax }).syntax;
  loaded = { syntax, parser: syntax.NewParser(syntax.Variant(syntax.LangBash)) };
});

/** A script needed the full parser before it was loaded (parseShellLoading loads it then). */
export class ParserNotLoadedError extends Error {}

function parserPackage(): NonNullable<typeof loaded> {
  if (!loaded) throw new ParserNotLoadedError("the shell parser is not loaded");
  return loaded;
}

export class ShellSyntaxError extends Error {}

/** Parses a bash script; throws ShellSyntaxError with the parser's `line:col: message`. */
export function parseBash(src: string): File {
  const { parser } = parserPackage();
  try {
    return parser.Parse(src, "");
  } catch (err) {
    // Go errors arrive as objects with an Error() method, not JS Errors.
    const e = err as { Error?: () => string; message?: string };
    const text = typeof e?.Error === "function" ? e.Error() : e?.message ?? String(err);
    throw new ShellSyntaxError(text);
  }
}

/**
 * The wrappers the package hands out name their Go type in `$type`
 * ("mvdan.cc/sh/v3/syntax.*CallExpr"), as syntax.NodeType does from the same reflect
 * type through fmt.Sprintf ("CallExpr"), which was most of the gate's time on a bash
 * call. tests/tools/sh_syntax_test.ts checks both agree for every node kind; a node
 * without the field falls back to NodeType.
 */
const TYPE_PREFIX = "mvdan.cc/sh/v3/syntax.*";

/** The node's type from its `$type` field; undefined when the field is not there. */
export function typeFromField(node: Node): string | undefined {
  const t = (node as { $type?: unknown }).$type;
  return typeof t === "string" && t.startsWith(TYPE_PREFIX)
    ? t.slice(TYPE_PREFIX.length)
    : undefined;
}

export function nodeType(node: Node): string {
  return typeFromField(node) ?? parserPackage().syntax.NodeType(node);
}

/** Visits `node` and everything below it; `fn` returning false skips the children. */
export function walk(node: Node, fn: (node: Node, type: string) => boolean | void): void {
  parserPackage().syntax.Walk(node, (n) => (n ? fn(n, nodeType(n)) !== false : true));
}

/** Every node of `type` in `src`, in the order the walk meets them. */
function allOf<T extends Node>(src: string, type: string): T[] {
  const found: T[] = [];
  walk(parseBash(src), (n, t) => {
    if (t === type) found.push(n as T);
  });
  return found;
}

function firstOf<T extends Node>(src: string, type: string): T {
  const [found] = allOf<T>(src, type);
  if (!found) throw new Error(`mvdan-sh: no ${type} in ${JSON.stringify(src)}`);
  return found;
}

/**
 * Operator codes are read from sample scripts, each a parse and a walk of a couple of
 * milliseconds through the package's wrappers: a group is read when first used, so a
 * command with no redirect or arithmetic does not pay for those samples.
 */
function atFirstUse<T extends object>(read: () => T): T {
  let value: T | undefined;
  return new Proxy({} as T, {
    get(_, key) {
      const v = (value ??= read())[key as keyof T];
      return typeof v === "function" ? v.bind(value) : v;
    },
  });
}

/** One operator code read at its first use. */
function codeAtFirstUse(read: () => number): { is(op: number): boolean } {
  let code: number | undefined;
  return { is: (op) => op === (code ??= read()) };
}

/**
 * Each redirect operator once, in this order, on one command (its here-documents'
 * bodies follow it): one parse and one walk read them all.
 */
export const REDIRECT_SAMPLE: ReadonlyArray<[OpName, string]> = [
  ["rdrIn", "< f"],
  ["rdrInOut", "<> f"],
  ["dplIn", "<&3"],
  ["hdoc", "<<E"],
  ["dashHdoc", "<<-F"],
  ["wordHdoc", "<<< s"],
  ["rdrOut", "> f"],
  ["appOut", ">> f"],
  ["clbOut", ">| f"],
  ["rdrAll", "&> f"],
  ["appAll", "&>> f"],
  ["dplOut", ">&2"],
];

/** Operator codes of the parser, read from sample scripts. */
export const OP: Readonly<Record<OpName, number>> = atFirstUse(() => {
  const redirects = allOf<Redirect>(
    `a ${REDIRECT_SAMPLE.map(([, text]) => text).join(" ")}\nE\n\tF\n`,
    "Redirect",
  );
  const pipes = allOf<BinaryCmd>("a | b; c |& d", "BinaryCmd");
  if (redirects.length !== REDIRECT_SAMPLE.length || pipes.length !== 2) {
    throw new Error("mvdan-sh: the operator samples did not parse as expected");
  }
  const codes = { pipe: pipes[0].Op, pipeAll: pipes[1].Op } as Record<OpName, number>;
  REDIRECT_SAMPLE.forEach(([name], i) => codes[name] = redirects[i].Op);
  return codes;
});
type OpName =
  | "pipe"
  | "pipeAll"
  | "rdrIn"
  | "rdrInOut"
  | "dplIn"
  | "hdoc"
  | "dashHdoc"
  | "wordHdoc"
  | "rdrOut"
  | "appOut"
  | "clbOut"
  | "rdrAll"
  | "appAll"
  | "dplOut";

const opOf = (src: string, type: string) => firstOf<ArithmNode>(src, type).Op;
/** Operators that assign to their left side: `=`, `+=`, … in arithmetic, `++`/`--`. */
export const ASSIGNING_ARITHM: ReadonlySet<number> = atFirstUse(() =>
  new Set([
    ...["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="].map((op) =>
      opOf(`((a${op}1))`, "BinaryArithm")
    ),
    opOf("((a++))", "UnaryArithm"),
    opOf("((a--))", "UnaryArithm"),
  ])
);
/** Plain `=` in arithmetic: the left side is set, not read. */
export const ARITHM_ASSIGN = codeAtFirstUse(() => opOf("((a=1))", "BinaryArithm"));
/** The `@` of `${x@Q}`, `${x@P}`, …: the operator letter is the expansion's word. */
export const PARAM_AT = codeAtFirstUse(() => firstOf<ParamExp>(": ${a@Q}", "ParamExp").Exp!.Op);
/** `[[ a -eq b ]]` and the other tests that evaluate both sides as arithmetic. */
export const ARITHM_TESTS: ReadonlySet<number> = atFirstUse(() =>
  new Set(
    ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"].map((op) =>
      firstOf<TestNode>(`[[ a ${op} b ]]`, "BinaryTest").Op
    ),
  )
);
/** `[[ -v NAME ]]` and `[[ -R NAME ]]`: NAME's subscript is evaluated. */
export const NAME_TESTS: ReadonlySet<number> = atFirstUse(() =>
  new Set(["-v", "-R"].map((op) => firstOf<TestNode>(`[[ ${op} a ]]`, "UnaryTest").Op))
);
/** `${NAME=word}` and `${NAME:=word}` assign when NAME is unset (or empty). */
export const ASSIGNING_PARAM: ReadonlySet<number> = atFirstUse(() =>
  new Set([": ${a=1}", ": ${a:=1}"].map((src) => firstOf<ParamExp>(src, "ParamExp").Exp!.Op))
);

/** True when the redirect feeds the command's standard input. */
export function isStdinRedirect(r: Redirect): boolean {
  if (r.N && r.N.Value !== "0") return false;
  return [OP.rdrIn, OP.rdrInOut, OP.dplIn, OP.hdoc, OP.dashHdoc, OP.wordHdoc].includes(r.Op);
}
