/**
 * Code bash builds from text it has at run time, which no parse of the script can
 * see: a variable's value in arithmetic (`a[$(cmd)]` in it runs cmd), `${x@P}`,
 * `${!x}`, a subscript in a variable name given to a builtin, integer variables.
 * Each spelling below really runs its command in bash (checked here first), and the
 * gate refuses it under an allow list, even an empty one, with rule bash.eval.
 * Arithmetic on literal numbers and the shell's numeric parameters stays allowed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mismatches, shellGate } from "./_shell_gate.ts";

/** Each runs `touch pwned` in bash without naming touch as a command bash is told to run. */
export const EVALUATED: readonly string[] = [
  "x='$(touch pwned)'; echo \"${x@P}\"",
  "x='$(touch pwned)'; : \"${x@P}\"",
  "read -r x <<< '$(touch pwned)'; echo ${x@P}",
  "x='a[$(touch pwned)]'; echo $((x))",
  "x='a[$(touch pwned)]'; echo $(($x))",
  "x='a[$(touch pwned)]'; echo $[x]",
  "x='a[$(touch pwned)]'; ((x))",
  "x='a[$(touch pwned)]'; ((y=x+1))",
  "x='a[$(touch pwned)]'; let y=x",
  "x='a[$(touch pwned)]'; let \"y=x\"",
  "let 'y=a[$(touch pwned)]'",
  "x='a[$(touch pwned)]'; for ((i=x; i<0; i++)); do :; done",
  "x='a[$(touch pwned)]'; [[ $x -eq 0 ]]",
  "x='a[$(touch pwned)]'; [[ x -lt 1 ]]",
  "x='a[$(touch pwned)]'; [[ 1 -ne $x ]]",
  "x='a[$(touch pwned)]'; b=(1 2); echo ${b[x]}",
  "x='a[$(touch pwned)]'; b=(1 2); echo \"${b[$x]}\"",
  "x='a[$(touch pwned)]'; b[x]=1",
  "x='a[$(touch pwned)]'; b=([x]=1)",
  "x='a[$(touch pwned)]'; s=abc; echo ${s:x}",
  "x='a[$(touch pwned)]'; s=abc; echo ${s:0:x}",
  "x='a[$(touch pwned)]'; set -- 1 2; echo ${@:x}",
  "declare -i n; n='a[$(touch pwned)]'",
  "f() { local -i n='a[$(touch pwned)]'; }; f",
  "x='a[$(touch pwned)]'; echo $(( $(echo \"$x\") ))",
  "read -r x <<< 'a[$(touch pwned)]'; echo $((x))",
  "x='a[$(touch pwned)]'; echo ${!x}",
  "x='a[$(touch pwned)]'; echo \"${!x:-}\"",
  "test -v 'a[$(touch pwned)]'",
  "[ -v 'a[$(touch pwned)]' ]",
  "[[ -v 'a[$(touch pwned)]' ]]",
  "x='a[$(touch pwned)]'; [[ -v $x ]]",
  "x='a[$(touch pwned)]'; test -v \"$x\"",
  "printf -v 'a[$(touch pwned)]' %s x",
  "read 'a[$(touch pwned)]' <<< x",
  "a=(1); unset 'a[$(touch pwned)]'",
  "declare 'a[$(touch pwned)]=1'",
  "f() { local 'a[$(touch pwned)]=1'; }; f",
  "typeset 'a[$(touch pwned)]=1'",
  "sleep 0 & wait -n -p 'a[$(touch pwned)]'",
  "builtin printf -v 'a[$(touch pwned)]' x",
  "command read 'a[$(touch pwned)]' <<< x",
  "bash -c 'x=\"a[\\$(touch pwned)]\"; echo $((x))'",
  "eval 'x=\"a[\\$(touch pwned)]\"; echo $((x))'",
  "x='a[$(touch pwned)]'; b=(1); echo $((b[0]+x))",
  "a[0]='b[$(touch pwned)]'; echo $((a[0]))",
  "x='a[`touch pwned`]'; echo $((x))",
  "x='a[$(touch pwned)]'; y=x; echo $((y))",
  "x='a[$(touch pwned)]'; case 1 in *) echo $((x));; esac",
  "while read -r x; do echo $((x)); done <<< 'a[$(touch pwned)]'",
  "for x in 'a[$(touch pwned)]'; do ((x)); done",
  "x='a[$(touch pwned)]'; echo $(( x > 0 ? 1 : 0 ))",
  "x='a[$(touch pwned)]'; : $((x))",
  "x='a[$(touch pwned)]'; [[ $x -ge 0 || 1 -le 2 ]]",
  "x='a[$(touch pwned)]'; echo $((-x))",
  "x='a[$(touch pwned)]'; ((x++))",
  "x='a[$(touch pwned)]'; ((y+=x))",
  "x='a[$(touch pwned)]'; echo $((x)) > /dev/null",
  "x='a[$(touch pwned)]'; echo \"$((x))\"",
  "x='a[$(touch pwned)]'; cat <<EOT\n$((x))\nEOT",
];

/** Arithmetic and names that hold no run-time text: allowed under an allow list. */
const ORDINARY: readonly string[] = [
  "echo $((1+2))",
  "echo $((0x10 * 2#11 - 010))",
  "[[ $# -eq 0 ]] && echo none",
  "x=abc; echo ${#x}",
  "a=(1 2 3); echo ${a[0]} ${a[@]} ${#a[@]} ${!a[@]}",
  "s=abcdef; echo ${s:1:2} ${s: -2}",
  "((n=5)); echo $n",
  "n=$((3*4)); echo $n",
  "printf -v out '%s' hi; echo $out",
  "read -r line <<< hi; echo $line",
  "test -v HOME && echo set",
  "[[ -v a[0] ]] || echo unset",
  "unset x y",
  "declare -a list=(a b); echo ${list[1]}",
  'x=1; echo "${x@Q}"',
  "echo $? $$ $#",
  "set -- a b; echo $#",
  "echo ${!HO*}",
];

async function runsInBash(script: string): Promise<boolean> {
  const dir = await Deno.makeTempDir({ prefix: "mopac_eval_" });
  try {
    await new Deno.Command("bash", {
      args: ["-c", script],
      cwd: dir,
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return await Deno.stat(join(dir, "pwned")).then(() => true, () => false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("corpus: each spelling really runs its command in bash", async () => {
  assert.ok(EVALUATED.length >= 60, `${EVALUATED.length} cases`);
  const inert: string[] = [];
  for (const script of EVALUATED) if (!(await runsInBash(script))) inert.push(script);
  assert.deepEqual(inert, []);
});

Deno.test("corpus: under an allow list, even an empty one, bash may not build code from run-time text", async () => {
  for (const allow of [[], ["git status", "npm test", "cat *", "bash *", "sleep *"]]) {
    await using gate = await shellGate({ bash: { allow } });
    assert.deepEqual(await mismatches(gate, EVALUATED.map((s) => [s, "bash.eval"] as const)), []);
    assert.deepEqual(await mismatches(gate, ORDINARY.map((s) => [s, "allow"] as const)), []);
  }
});

Deno.test("a denial says what bash would do; a list with `*` and coder do not check", async () => {
  await using gate = await shellGate({ bash: { allow: ["git status"] } });
  const d = await gate.decide("read -r x < notes.txt; echo $((x + 1))");
  assert.equal(d.allow, false);
  if (!d.allow) {
    assert.equal(d.rule, "bash.eval");
    assert.match(
      d.reason,
      /^in `\$\(\(x \+ 1\)\)`, `x` names a variable whose value is evaluated as arithmetic/,
    );
    assert.match(d.reason, /under a bash\.allow list/);
  }
  // Every command allowed: no program is kept out, so nothing is promised here (as in coder).
  await using every = await shellGate({ bash: { allow: ["*"] } });
  assert.deepEqual(await mismatches(every, EVALUATED.map((s) => [s, "allow"] as const)), []);
  await using coder = await shellGate();
  assert.deepEqual(await mismatches(coder, EVALUATED.map((s) => [s, "allow"] as const)), []);
});
