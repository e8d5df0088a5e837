/**
 * sh_syntax.ts names a node's type from the wrapper's `$type` field rather than asking
 * the package (syntax.NodeType formats it with fmt.Sprintf in GopherJS, which was most
 * of the gate's time on a bash call). Over scripts that reach every kind of node the
 * shell policy reads, the field must be there and agree with NodeType.
 */
import assert from "node:assert/strict";
import {
  ARITHM_ASSIGN,
  ARITHM_TESTS,
  ASSIGNING_ARITHM,
  ASSIGNING_PARAM,
  loadShellParser,
  NAME_TESTS,
  nodeType,
  OP,
  PARAM_AT,
  parseBash,
  REDIRECT_SAMPLE,
  typeFromField,
  walk,
} from "../../src/tools/shell/sh_syntax.ts";
import mvdan from "mvdan-sh";

await loadShellParser();

const syntax = (mvdan as unknown as { syntax: { NodeType(node: unknown): string } }).syntax;

const SCRIPTS = [
  "a=1 b 'c' \"d$e\" $'f' > g 2>&1 < h <<< i | j |& k && l || m; n &",
  "x=$(y) z=`w` $((1 + 2)) <(p) >(q) ${r:-s} ${#t} @(u|v)",
  "if [[ -n $x && $y == z* ]]; then a; elif b; then c; else d; fi",
  "for i in 1 2; do :; done; for ((i = 0; i < 3; i++)); do :; done",
  "while a; do b; done; until c; do d; done; case $x in a|b) e ;; *) f ;; esac",
  "f() { g; }; function h { (i); }; declare -x j=1; local k; let l=1; export m",
  "time n; coproc o { p; }; ((q++)); r <<E\nbody $s\nE\n",
  'arr=(1 2 3); echo ${arr[0]} "${arr[@]}"; ! t; u=v w',
];

Deno.test("nodeType agrees with the package's NodeType on every node, from $type", () => {
  const seen = new Set<string>();
  for (const script of SCRIPTS) {
    walk(parseBash(script), (node, type) => {
      assert.equal(typeFromField(node), syntax.NodeType(node), script);
      assert.equal(nodeType(node), type);
      seen.add(type);
    });
  }
  const kinds = (
    "File Stmt CallExpr BinaryCmd Word Lit SglQuoted DblQuoted ParamExp CmdSubst ArithmExp " +
    "ProcSubst ExtGlob Redirect Assign Subshell Block IfClause ForClause WhileClause " +
    "CaseClause FuncDecl DeclClause LetClause TimeClause CoprocClause ArithmCmd TestClause"
  ).split(" ");
  assert.deepEqual(kinds.filter((k) => !seen.has(k)), []);
});

Deno.test("operator codes, read from samples at first use, name the operators", () => {
  const opOf = (script: string, type: string) => {
    let op: number | undefined;
    walk(parseBash(script), (node, t) => {
      if (op === undefined && t === type) op = (node as unknown as { Op: number }).Op;
    });
    return op!;
  };
  assert.equal(OP.pipe, opOf("x | y", "BinaryCmd"));
  assert.equal(OP.pipeAll, opOf("x |& y", "BinaryCmd"));
  assert.notEqual(OP.pipe, OP.pipeAll);
  // All redirect codes come from one sample command: each must be the code of its
  // operator alone, and no two alike.
  for (const [name, text] of REDIRECT_SAMPLE) {
    const body = text.startsWith("<<-") ? "\n\tF\n" : text.startsWith("<<E") ? "\nE\n" : "";
    assert.equal(OP[name as keyof typeof OP], opOf(`x ${text}${body}`, "Redirect"), name);
  }
  const codes = REDIRECT_SAMPLE.map(([name]) => OP[name as keyof typeof OP]);
  assert.equal(new Set(codes).size, REDIRECT_SAMPLE.length);
  assert.ok(ASSIGNING_ARITHM.has(opOf("((b+=2))", "BinaryArithm")));
  assert.ok(!ASSIGNING_ARITHM.has(opOf("((b+2))", "BinaryArithm")));
  assert.equal(ASSIGNING_ARITHM.size, 13);
  assert.ok(ARITHM_ASSIGN.is(opOf("((b=2))", "BinaryArithm")));
  assert.ok(!ARITHM_ASSIGN.is(opOf("((b+=2))", "BinaryArithm")));
  assert.ok(ARITHM_TESTS.has(opOf("[[ x -lt y ]]", "BinaryTest")));
  assert.ok(NAME_TESTS.has(opOf("[[ -v x ]]", "UnaryTest")));
  const expOf = (script: string) => {
    let op: number | undefined;
    walk(parseBash(script), (node, t) => {
      if (op === undefined && t === "ParamExp") {
        op = (node as unknown as { Exp: { Op: number } }).Exp.Op;
      }
    });
    return op!;
  };
  assert.ok(ASSIGNING_PARAM.has(expOf(": ${x:=1}")));
  assert.ok(!ASSIGNING_PARAM.has(expOf(": ${x:-1}")));
  assert.ok(PARAM_AT.is(expOf(": ${x@P}")));
  assert.ok(!PARAM_AT.is(expOf(": ${x:-1}")));
});
