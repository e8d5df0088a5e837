/**
 * `deno task bench gate`: what the shell policy costs per bash call. Parses and
 * checks every script of the adversarial corpora (assignments, deny spellings, bans,
 * code built from run-time text) and a set of ordinary commands, under coder and
 * under an allowlist with deny patterns, and prints the median and 95th percentile
 * per check.
 */
import { loadShellParser, parseShell } from "../../src/tools/shell/parse.ts";
import { checkShell } from "../../src/permission/shell_rules.ts";
import { RISKY_ASSIGNMENTS } from "../permission/corpus_assign_test.ts";
import { DENIED_SPELLINGS } from "../permission/corpus_deny_test.ts";
import { BANNED } from "../permission/corpus_bans_test.ts";
import { EVALUATED } from "../permission/corpus_eval_test.ts";
import { runsFrom } from "./_runs.ts";

// The full parser, for scripts that are not plain commands (shell/plain.ts).
await loadShellParser();

const ORDINARY = [
  "git status",
  "git diff --stat",
  "npm test",
  "deno test -A",
  "ls -la src",
  "cat package.json | jq .scripts",
  "grep -rn TODO src/",
  "sed -n 1,20p src/main.ts",
  "python3 script.py > out.txt 2>&1",
  "make -j2 && ./build/app --version",
];
const scripts = [
  ...RISKY_ASSIGNMENTS,
  ...DENIED_SPELLINGS,
  ...BANNED.map(([s]) => s),
  ...EVALUATED,
  ...ORDINARY,
];
/** An allowlist naming the ordinary commands (so that every rule is checked) and deny patterns. */
const rules = {
  allow: [
    ..."git npm deno ls cat jq grep sed python3 make ./build/app".split(" ").map((c) => `${c} *`),
    "PATH=*",
  ],
  deny: ["git push", "rm -rf", "npm publish"],
};
const runs = runsFrom(Deno.args, "gate_bench", 20);

function measure(check: (s: string) => unknown): number[] {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    for (const s of scripts) {
      const t0 = performance.now();
      check(s);
      times.push(performance.now() - t0);
    }
  }
  return times.sort((a, b) => a - b);
}

const at = (t: number[], q: number) => t[Math.min(t.length - 1, Math.floor(t.length * q))];
for (
  const [label, check] of [
    ["coder (ban list and shell rules)", (s: string) => checkShell(parseShell(s, { cwd: "/w" }))],
    [
      "allowlist with deny patterns",
      (s: string) => checkShell(parseShell(s, { cwd: "/w" }), rules),
    ],
  ] as const
) {
  measure(check); // warm-up
  const t = measure(check);
  console.log(
    `${label}: ${scripts.length} scripts × ${runs}: median ${(at(t, 0.5) * 1000).toFixed(0)} µs, ` +
      `p95 ${(at(t, 0.95) * 1000).toFixed(0)} µs, max ${
        (t.at(-1)! * 1000).toFixed(0)
      } µs per check`,
  );
}
