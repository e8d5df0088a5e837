/**
 * sh_syntax.ts names a node's type from the wrapper's `$type` field rather than asking
 * the package (syntax.NodeType formats it with fmt.Sprintf in GopherJS, which was most
 * of the gate's time on a bash call). Over scripts that reach every kind of node the
 * shell policy reads, both must agree, and the fast path must be the one taken.
 */
import assert from "node:assert/strict";
import { nodeType, parseBash, readsTypeField, walk } from "../../src/tools/shell/sh_syntax.ts";
import mvdan from "mvdan-sh";

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
  assert.ok(readsTypeField(), "the $type field was not trusted: every node type is formatted");
  const seen = new Set<string>();
  for (const script of SCRIPTS) {
    walk(parseBash(script), (node, type) => {
      assert.equal(type, syntax.NodeType(node), script);
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
