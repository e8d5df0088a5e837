/**
 * Places where bash turns text it only has at run time into code, which no parse of
 * the script can look into:
 *  - arithmetic (`$((x))`, `((x))`, `let`, `for ((…))`, `[[ x -eq y ]]`, array
 *    subscripts, `${s:offset:length}`) evaluates a variable's value as an expression,
 *    and a subscript in that value (`a[$(cmd)]`) runs cmd; so does the output of a
 *    command substitution or quoted text used as an operand;
 *  - `${x@P}` expands x's value as a prompt, command substitutions included;
 *  - `${!x}` takes x's value as a variable name, subscript and all;
 *  - builtins that take a variable name (`printf -v`, `read`, `test -v`, `unset`,
 *    `declare`, …) evaluate a subscript written in it (`printf -v 'a[$(cmd)]' x`);
 *  - an integer variable (`declare -i`) evaluates whatever is assigned to it.
 * Plain numbers and the shell's numeric parameters (`$#`, `$?`, `$$`, `$!`, `${#x}`)
 * hold no code and are not reported; neither is the variable an `=` sets.
 */
import type { ShellEvaluation } from "../../permission/types.ts";
import {
  ARITHM_ASSIGN,
  ARITHM_TESTS,
  type ArithmNode,
  type ArithmRoot,
  type Assign,
  type CStyleLoop,
  type DeclClause,
  type Lit,
  NAME_TESTS,
  type Node,
  nodeType,
  PARAM_AT,
  type ParamExp,
  type TestNode,
  walk,
  type Word,
} from "./sh_syntax.ts";
import { type ResolvedWord, resolveWord, type SourceText } from "./words.ts";
import { scanOptions } from "./wrapper_args.ts";

const NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9A-Za-z@_]+)?)$/;
/** A variable name with at most a literal numeric (or `@`/`*`) subscript. */
const PLAIN_NAME = /^[A-Za-z_]\w*(\[([0-9]+|@|\*)\])?$/;
const NUMERIC_PARAMS = new Set(["#", "?", "$", "!"]);

const ARITHMETIC = "is evaluated as arithmetic, and a value such as `a[$(cmd)]` runs cmd";

/** What a node of the script makes bash evaluate at run time (empty for most nodes). */
export function evaluationsOf(node: Node, type: string, src: SourceText): ShellEvaluation[] {
  switch (type) {
    case "ArithmExp":
    case "ArithmCmd":
      return operands((node as ArithmRoot).X, src, node);
    case "CStyleLoop": {
      const loop = node as CStyleLoop;
      return [loop.Init, loop.Cond, loop.Post].flatMap((x) => (x ? operands(x, src, node) : []));
    }
    case "LetClause":
      return (node as unknown as { Exprs: Node[] }).Exprs.flatMap((x) => operands(x, src, node));
    case "ParamExp":
      return paramEvaluations(node as ParamExp, src);
    case "Assign":
      return (node as Assign).Index ? operands((node as Assign).Index!, src, node) : [];
    case "ArrayElem": {
      const index = (node as unknown as { Index: Node | null }).Index;
      return index ? operands(index, src, node) : [];
    }
    case "BinaryTest": {
      const t = node as TestNode;
      return ARITHM_TESTS.has(t.Op) ? [t.X, t.Y!].flatMap((x) => operands(x, src, node)) : [];
    }
    case "UnaryTest": {
      const t = node as TestNode;
      if (!NAME_TESTS.has(t.Op) || nodeType(t.X) !== "Word") return [];
      return nameEvaluations(resolveWord(t.X as Word, src), src.of(node));
    }
    case "DeclClause":
      return declEvaluations(node as DeclClause, src);
    default:
      return [];
  }
}

function paramEvaluations(p: ParamExp, src: SourceText): ShellEvaluation[] {
  const text = src.of(p);
  const out: ShellEvaluation[] = [];
  if (p.Exp && PARAM_AT.is(p.Exp.Op) && p.Exp.Word && src.of(p.Exp.Word) === "P") {
    out.push({
      text,
      what: "the value is expanded as a prompt, command substitutions included",
    });
  }
  if (p.Excl && !p.Index && !p.Names) {
    out.push({
      text,
      what: "the value is taken as the name of a variable, subscript and all",
    });
  }
  const index = p.Index && !["@", "*"].includes(src.of(p.Index)) ? [p.Index] : [];
  const slice = [p.Slice?.Offset, p.Slice?.Length].filter((x): x is Node => !!x);
  for (const x of [...index, ...slice]) out.push(...operands(x, src, p));
  return out;
}

/**
 * The operands of an arithmetic expression that are not plain numbers. Nested
 * expansions (`$((…))`, `${a[i]}`) are their own places, found when the walk
 * reaches them.
 */
function operands(root: Node, src: SourceText, whole: Node): ShellEvaluation[] {
  const out: ShellEvaluation[] = [];
  const assigned = new Set<string>();
  const key = (n: Node) => `${n.Pos().Offset()}:${n.End().Offset()}`;
  walk(root, (n, t) => {
    if (t === "BinaryArithm" && ARITHM_ASSIGN.is((n as ArithmNode).Op)) {
      assigned.add(key((n as unknown as { X: Node }).X));
      return;
    }
    if (t !== "Word") return;
    if (!assigned.has(key(n))) {
      for (const part of (n as Word).Parts) {
        const why = operandRisk(part);
        if (why) out.push({ text: src.of(whole), what: `\`${src.of(n)}\` ${why}` });
      }
    }
    return false;
  });
  return out;
}

function operandRisk(part: Node): string | undefined {
  switch (nodeType(part)) {
    case "Lit":
      return NUMBER.test((part as Lit).Value)
        ? undefined
        : `names a variable whose value ${ARITHMETIC}`;
    case "ParamExp": {
      const p = part as ParamExp;
      const special = p.Param && NUMERIC_PARAMS.has(p.Param.Value) && !p.Exp && !p.Slice;
      // `a[i]` too: the element's value is evaluated like a variable's.
      return p.Length || special ? undefined : `expands a value that ${ARITHMETIC}`;
    }
    case "ArithmExp":
      return undefined;
    case "CmdSubst":
    case "ProcSubst":
      return `uses a command's output, which ${ARITHMETIC}`;
    default:
      return `uses text that ${ARITHMETIC}`;
  }
}

/** A variable name bash evaluates: plain, or with a literal numeric subscript. */
function nameEvaluations(w: ResolvedWord, text: string): ShellEvaluation[] {
  if (w.static && PLAIN_NAME.test(w.value)) return [];
  return [{
    text,
    what: `\`${w.text}\` ` +
      (w.static
        ? "names a variable with a subscript, which is evaluated as arithmetic"
        : "names a variable only known at run time, whose subscript is evaluated as arithmetic"),
  }];
}

/** `declare -i` and `declare 'a[$(cmd)]=1'` (unquoted subscripts are parsed as Index). */
function declEvaluations(decl: DeclClause, src: SourceText): ShellEvaluation[] {
  const out: ShellEvaluation[] = [];
  for (const a of decl.Args) {
    if (a.Name || !a.Value) continue;
    const w = resolveWord(a.Value, src);
    out.push(...declWord(w, src.of(decl)));
  }
  return out;
}

function declWord(w: ResolvedWord, text: string): ShellEvaluation[] {
  if (w.static && /^[-+][A-Za-z]*i/.test(w.value)) {
    return [{
      text,
      what: "an integer variable evaluates every value assigned to it as arithmetic",
    }];
  }
  if (w.static && /^[-+]/.test(w.value)) return [];
  const name = w.static ? w.value.replace(/\+?=[\s\S]*$/, "") : w.value;
  return nameEvaluations({ ...w, value: name }, text);
}

const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/**
 * Variable names a builtin run as a command evaluates: `printf -v NAME`, `read NAME`,
 * `mapfile NAME`, `getopts … NAME`, `wait -p NAME`, `unset NAME`, `test -v NAME`,
 * `declare NAME=…` (also as `builtin declare`), and `let` expressions.
 */
export function builtinEvaluations(
  name: string,
  words: ResolvedWord[],
  text: string,
): ShellEvaluation[] {
  const names = (list: Array<ResolvedWord | undefined>) =>
    list.flatMap((w) => (w ? nameEvaluations(w, text) : []));
  if (DECLARERS.has(name)) {
    return words.slice(1).flatMap((w) => declWord(w, text));
  }
  switch (name) {
    case "printf":
      return names([scanOptions(words, 1, { short: "v" }).seen.get("-v")]);
    case "read": {
      const scan = scanOptions(words, 1, { short: "adinNptu" });
      return names([scan.seen.get("-a"), ...words.slice(scan.next)]);
    }
    case "mapfile":
    case "readarray":
      return names([words[scanOptions(words, 1, { short: "dnOsuCc" }).next]]);
    case "getopts":
      return names([words[scanOptions(words, 1, {}).next + 1]]);
    case "wait":
      return names([scanOptions(words, 1, { short: "p" }).seen.get("-p")]);
    case "unset":
      return names(words.slice(scanOptions(words, 1, {}).next));
    case "test":
    case "[":
      return names(
        words.flatMap((w, i) => (i > 0 && /^-[vR]$/.test(words[i - 1].value) ? [w] : [])),
      );
    case "let":
      return words.slice(1).some((w) => !w.static || !NUMBER.test(w.value))
        ? [{
          text,
          what: `its text is evaluated as arithmetic; a value such as \`a[$(cmd)]\` runs cmd`,
        }]
        : [];
    default:
      return [];
  }
}
