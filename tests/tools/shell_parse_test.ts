/** What parseShell reports for a script: the commands, their words and what is dynamic. */
import assert from "node:assert/strict";
import { loadShellParser, parseShell } from "../../src/tools/shell/parse.ts";
import { decodeAnsiC } from "../../src/tools/shell/ansi_c.ts";
import { DENO_RUN } from "../_support/deps.ts";

// The full parser, for scripts that are not plain commands (shell/plain.ts).
await loadShellParser();

const argvs = (script: string) => parseShell(script).commands.map((c) => c.argv);

Deno.test("finds every simple command in lists, pipelines and compound commands", () => {
  assert.deepEqual(argvs("a 1 && b 2 || c; d | e |& f"), [
    ["a", "1"],
    ["b", "2"],
    ["c"],
    ["d"],
    ["e"],
    ["f"],
  ]);
  assert.deepEqual(argvs("if a; then b; elif c; then d; else e; fi"), [["a"], ["b"], ["c"], ["d"], [
    "e",
  ]]);
  assert.deepEqual(argvs("for i in x; do a $i; done; while b; do c; done"), [["a", "$i"], ["b"], [
    "c",
  ]]);
  assert.deepEqual(argvs("f() { a; }; (b); { c; }"), [["a"], ["b"], ["c"]]);
});

Deno.test("resolves quotes and escapes to the words a program receives", () => {
  assert.deepEqual(argvs(`e'c'ho "a b" c\\ d $'\\t' "x\\"y" 'it''s'`), [
    ["echo", "a b", "c d", "\t", 'x"y', "its"],
  ]);
  assert.equal(decodeAnsiC("\\x41\\101\\u00e9\\cA\\n\\q"), "AA\u00e9\x01\n\\q");
});

Deno.test("$'…' escapes make bytes, read as UTF-8: an octal-spelled path is the one bash opens", () => {
  assert.deepEqual(argvs("cat $'secret-\\303\\251.txt' $'\\xc3\\xa9'"), [[
    "cat",
    "secret-é.txt",
    "é",
  ]]);
  assert.equal(decodeAnsiC("\\xff"), "\ufffd", "a byte that is no UTF-8 reads as U+FFFD");
  assert.equal(decodeAnsiC("\\c?\\ca"), "\x7f\x01");
});

Deno.test("marks dynamic arguments and keeps their text", () => {
  const [cmd] = parseShell('git commit -m "$MSG" $(cat f)').commands;
  assert.deepEqual(cmd.argv, ["git", "commit", "-m", '"$MSG"', "$(cat f)"]);
  assert.deepEqual(cmd.dynamic_args, [3, 4]);
  assert.equal(cmd.dynamic, false);
});

Deno.test("command text is the source of that command, also for non-ASCII scripts", () => {
  const acc = parseShell("echo 'héllo wörld' && grep -n ü file");
  assert.deepEqual(acc.commands.map((c) => c.text), ["echo 'héllo wörld'", "grep -n ü file"]);
});

Deno.test("looks through wrappers and into scripts run by a shell", () => {
  assert.deepEqual(argvs("timeout -k 1 5 nice -n 2 env A=1 B=2 make -j2"), [["make", "-j2"]]);
  assert.deepEqual(argvs("xargs -n1 -I% grep % f"), [["grep", "%", "f"]]);
  assert.deepEqual(argvs("bash -c 'a | b' && sh -ec \"c\""), [["a"], ["b"], ["c"]]);
  assert.deepEqual(argvs("find . -exec wc -l {} \\;"), [
    ["find", ".", "-exec", "wc", "-l", "{}", ";"],
    ["wc", "-l", "{}"],
  ]);
  assert.deepEqual(argvs("sudo -u x id"), [["sudo", "-u", "x", "id"], ["id"]]);
});

Deno.test("a shell fed by a pipe or an unknown stdin is dynamic; a literal here-string is parsed", () => {
  assert.equal(parseShell("cat x | sh").commands.some((c) => c.dynamic), true);
  assert.deepEqual(argvs("sh <<< 'a b'"), [["sh"], ["a", "b"]]);
  assert.equal(parseShell('sh <<< "$S"').commands.some((c) => c.dynamic), true);
});

Deno.test("scripts nested too deep are treated as unknowable", () => {
  let script = "ls";
  for (let i = 0; i < 10; i++) script = `bash -c ${JSON.stringify(script).replaceAll("$", "\\$")}`;
  const acc = parseShell(script);
  assert.equal(acc.parse_error, undefined);
  assert.equal(acc.commands.some((c) => c.dynamic), true);
});

Deno.test("a script that does not parse reports where", () => {
  const acc = parseShell("echo ok\nif then");
  assert.match(acc.parse_error ?? "", /^2:1: /);
  assert.match(parseShell("bash -c 'a &&'").parse_error ?? "", /script run by `bash -c 'a &&'`/);
});

Deno.test("the parser loads and works under a narrow --allow-env", async () => {
  // mvdan-sh reads all of process.env while it loads; sh_guard.ts hides it.
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/probe.ts`;
    const parse = new URL("../../src/tools/shell/parse.ts", import.meta.url).href;
    await Deno.writeTextFile(
      file,
      `import { loadShellParser, parseShell } from "${parse}";\nawait loadShellParser();\n` +
        `console.log(JSON.stringify(parseShell("c\\\\url x").commands[0].argv));\n`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...DENO_RUN, "--no-prompt", "--config", config, "--allow-env=HOME", file],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout).trim(), '["curl","x"]');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
