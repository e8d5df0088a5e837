/**
 * Every way a bash script can set a variable, for the shell policy: assignments
 * in front of a command or on their own (`A=1 cmd`, `A=1`), declarations (`export`,
 * `declare`, `local`, `readonly`, `typeset`, and namerefs, whose target is what gets
 * set later), builtins that store into a named variable (`read`, `printf -v`,
 * `mapfile`, `getopts`, `wait -p`), loop variables (`for`, `select`), arithmetic
 * (`((A=1))`, `let A++`) and `${A:=x}`. A name known only at run time is reported
 * without one, which the policy treats as any variable.
 */
import type { ShellAssignment } from "../../permission/types.ts";
import {
  type ArithmNode,
  type Assign,
  ASSIGNING_ARITHM,
  ASSIGNING_PARAM,
  type DeclClause,
  type Lit,
  type Node,
  nodeType,
  type ParamExp,
  type Word,
  type WordIter,
} from "./sh_syntax.ts";
import { type ResolvedWord, resolveWord, type SourceText } from "./words.ts";
import { scanOptions } from "./wrapper_args.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** One `NAME=value` of a command's prefix or a statement of its own. */
export function assignmentOf(a: Assign, src: SourceText): ShellAssignment {
  return {
    name: a.Name?.Value,
    value: a.Value ? src.of(a.Value) : "",
    text: src.of(a),
  };
}

/** The variables an `export`/`declare`/`local`/… statement sets. */
export function declAssignments(decl: DeclClause, src: SourceText): ShellAssignment[] {
  const out: ShellAssignment[] = [];
  let nameref = decl.Variant.Value === "nameref";
  for (const a of decl.Args) {
    if (a.Name) {
      if (a.Naked) continue; // `export B`: exports what B already holds
      out.push(assignmentOf(a, src));
      if (nameref) out.push(namerefTarget(a.Value, a, src));
      continue;
    }
    if (!a.Value) continue;
    const w = resolveWord(a.Value, src);
    if (w.static && /^[-+]/.test(w.value)) {
      if (w.value.includes("n")) nameref = true;
      continue;
    }
    out.push(...wordAssignment(w, src.of(a)));
  }
  return out;
}

/** `declare -n r=T`: assigning to r later assigns to T, so T counts as set. */
function namerefTarget(value: Word | null, a: Assign, src: SourceText): ShellAssignment {
  const w = value ? resolveWord(value, src) : undefined;
  const name = w?.static ? NAME.exec(w.value)?.[0] : undefined;
  return { name, value: "", text: src.of(a) };
}

/** A declaration argument as a word (`export "PS4=$x"` sets PS4 at run time). */
function wordAssignment(w: ResolvedWord, text: string): ShellAssignment[] {
  if (!w.static) return [{ value: w.text, text }];
  const eq = w.value.indexOf("=");
  if (eq < 0) return []; // a name alone: no value changes
  const name = w.value.slice(0, eq).replace(/\[.*$/, "").replace(/\+$/, "");
  return [{ name: NAME.test(name) ? name : undefined, value: w.value.slice(eq + 1), text }];
}

const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/**
 * Variables a builtin run as an ordinary command stores into (`read X`, `printf -v X`,
 * `builtin export X=1`); [] for other commands.
 */
export function builtinAssignments(
  name: string,
  words: ResolvedWord[],
  text: string,
): ShellAssignment[] {
  const named = (w: ResolvedWord | undefined): ShellAssignment[] =>
    w === undefined
      ? []
      : [{ name: w.static ? NAME.exec(w.value)?.[0] : undefined, value: "", text }];
  if (DECLARERS.has(name)) {
    const scan = scanOptions(words, 1, { plus: true });
    const nameref = [...scan.seen.keys()].some((k) => k.endsWith("n"));
    return words.slice(scan.next).flatMap((w) => {
      const set = wordAssignment(w, text);
      if (!nameref || !w.static) return set;
      const target = w.value.slice(w.value.indexOf("=") + 1);
      return [...set, { name: NAME.exec(target)?.[0], value: "", text }];
    });
  }
  switch (name) {
    case "read": {
      const scan = scanOptions(words, 1, { short: "adinNptu" });
      return [...named(scan.seen.get("-a")), ...words.slice(scan.next).flatMap(named)];
    }
    case "printf":
      return named(scanOptions(words, 1, { short: "v" }).seen.get("-v"));
    case "mapfile":
    case "readarray": {
      const scan = scanOptions(words, 1, { short: "dnOsuCc" });
      return named(words[scan.next] ?? { value: "MAPFILE", static: true, expands: false, text });
    }
    case "getopts":
      return named(words[scanOptions(words, 1, {}).next + 1]);
    case "wait":
      return named(scanOptions(words, 1, { short: "p" }).seen.get("-p"));
    default:
      return [];
  }
}

/** Arithmetic assignments inside a quoted `let` expression (`let 'A=1' "B++"`). */
const ARITHMETIC_SET =
  /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)/g;

/** The variables a `let` sets with its quoted expressions (the unquoted ones parse as arithmetic). */
export function letAssignments(exprs: Node[], src: SourceText): ShellAssignment[] {
  const out: ShellAssignment[] = [];
  for (const e of exprs) {
    if (nodeType(e) !== "Word") continue;
    const w = resolveWord(e as Word, src);
    if (!w.static) {
      out.push({ value: w.text, text: w.text });
      continue;
    }
    for (const m of w.value.matchAll(ARITHMETIC_SET)) {
      out.push({ name: m[1] ?? m[2] ?? m[3], value: "", text: w.text });
    }
  }
  return out;
}

/** Assignments made by expressions: `${A:=x}`, `for A in`, `((A=1))`, `let A++`. */
export function expressionAssignment(
  node: Node,
  type: string,
  src: SourceText,
): ShellAssignment | undefined {
  if (type === "ParamExp") {
    const p = node as ParamExp;
    if (!p.Exp || !ASSIGNING_PARAM.has(p.Exp.Op)) return undefined;
    return { name: p.Param?.Value, value: p.Exp.Word ? src.of(p.Exp.Word) : "", text: src.of(p) };
  }
  if (type === "WordIter") {
    return { name: (node as WordIter).Name.Value, value: "", text: src.of(node) };
  }
  if (type === "BinaryArithm" || type === "UnaryArithm") {
    const a = node as ArithmNode;
    if (!ASSIGNING_ARITHM.has(a.Op)) return undefined;
    return { name: arithmName(a.X), value: "", text: src.of(node) };
  }
  return undefined;
}

/** The variable on the left of an arithmetic assignment, when it is a plain name. */
function arithmName(x: Node): string | undefined {
  if (nodeType(x) !== "Word") return undefined;
  const parts = (x as Word).Parts;
  if (parts.length !== 1 || nodeType(parts[0]) !== "Lit") return undefined;
  return NAME.exec((parts[0] as Lit).Value)?.[0];
}
