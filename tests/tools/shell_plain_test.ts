/**
 * A plain command (src/tools/shell/plain.ts) is read without the full parser. What
 * the gate gets for it must be exactly what the parser would give: every corpus and
 * generated script plainWords accepts is parsed both ways and compared. The first
 * test runs before anything loads the parser in this file's worker, so a plain script
 * that still reached for it would fail there with ParserNotLoadedError.
 */
import assert from "node:assert/strict";
import {
  loadShellParser,
  ParserNotLoadedError,
  parseShell,
  parseShellLoading,
} from "../../src/tools/shell/parse.ts";
import { plainWords } from "../../src/tools/shell/plain.ts";

/** Commands, wrappers and builtins the policy treats specially, and ordinary ones. */
const NAMES = [
  "ls",
  "cat",
  "git",
  "deno",
  "npm",
  "rm",
  "cp",
  "chmod",
  "curl",
  "wget",
  "nc",
  "ssh",
  "env",
  "sudo",
  "doas",
  "su",
  "timeout",
  "nice",
  "nohup",
  "stdbuf",
  "xargs",
  "find",
  "bash",
  "sh",
  "zsh",
  "eval",
  "source",
  ".",
  "exec",
  "command",
  "builtin",
  "cd",
  "pushd",
  "popd",
  "read",
  "printf",
  "mapfile",
  "getopts",
  "unset",
  "alias",
  "trap",
  "true",
  ":",
  "test",
  "/usr/bin/env",
  "./run.sh",
  "%1",
  "-x",
  "a-b",
  "git-lfs",
  // Never plain first words: were one let through, the comparison below would catch it.
  ...["case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if"],
  ...["in", "select", "then", "time", "until", "while", "declare", "export", "let", "local"],
  ...["nameref", "readonly", "typeset"],
];

const ARGS = [
  "-c",
  "-la",
  "--",
  "-",
  "ls",
  "status",
  "-A",
  "A=1",
  "PATH=/tmp",
  "--flag=x",
  "a,b",
  "@x",
  "%",
  "+x",
  "-exec",
  "rm",
  "-rf",
  "/",
  "src/a.ts",
  "..",
  "-i",
  "-n",
  "5",
  "root",
  "curl",
  "evil.example:443",
  "if",
  "export",
  "x=1",
  "-v",
  "name",
  "-s",
  "bash",
  "sh",
  "eval",
  "-u",
  "HOME",
];

const CORPUS = [
  "ls",
  "ls -la src",
  "  git   status  ",
  "git\tdiff --stat",
  "deno test -A tests/",
  "env A=1 B=2 ls",
  "env -i PATH=/bin sh -c ls",
  "sudo rm -rf /",
  "timeout 5 curl evil.example",
  "xargs rm",
  "find . -name x -exec rm",
  "bash -c ls",
  "bash -c if",
  "sh -c export",
  "eval ls -la",
  "eval curl x",
  "source ./env.sh",
  ". ./env.sh",
  "exec bash",
  "command -v git",
  "builtin cd /tmp",
  "cd ..",
  "cd /etc",
  "pushd /tmp",
  "popd",
  "read -r line",
  "printf -v x y",
  "mapfile -t lines",
  "getopts ab opt",
  "unset PATH",
  "alias ll=ls",
  "trap ls EXIT",
  "nohup nc -l 4444",
  "su root -c ls",
  "true 3",
  ": x",
  "%1",
  "-x",
];

/** Scripts plainWords must leave to the parser. */
const NOT_PLAIN = [
  "",
  "   ",
  "A=1 ls",
  "A=1",
  "ls; rm x",
  "ls && rm x",
  "ls | sh",
  "ls > f",
  "cat < f",
  'echo "x"',
  "echo 'x'",
  "echo $HOME",
  "echo `id`",
  "echo $(id)",
  "ls *.ts",
  "ls ?",
  "ls [ab]",
  "echo {a,b}",
  "cd ~",
  "ls # c",
  "! ls",
  "echo a\\ b",
  "ls\nrm x",
  "ls\r",
  "echo é",
  "(ls)",
  "if true",
  "for x",
  "while true",
  "time ls",
  "function f",
  "coproc ls",
  "case x",
  "select x",
  "in x",
  "export A=1",
  "declare -x A",
  "local a",
  "readonly a",
  "typeset a",
  "nameref a",
  "let a=1",
  "[[ -f x ]]",
  "{ ls; }",
];

const results = (script: string, full: boolean) => {
  const cwd = "/work/repo";
  return [parseShell(script, { full }), parseShell(script, { cwd, full })];
};

/** Scripts of plain words, from the lists above and at random. */
function generated(count: number): string[] {
  let seed = 0x5eed;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const words = [pick(NAMES)];
    const n = Math.floor(next() * 6);
    for (let j = 0; j < n; j++) words.push(next() < 0.3 ? pick(NAMES) : pick(ARGS));
    out.push(words.join(next() < 0.2 ? " \t " : " "));
  }
  return out;
}

Deno.test("plain commands are read without loading the parser", () => {
  for (const script of ["ls -la src", "git status", "deno test -A", "env A=1 ls", "bash -c ls"]) {
    assert.ok(plainWords(script), script);
    assert.doesNotThrow(() => parseShell(script, { cwd: "/w" }), script);
  }
  // A plain script whose inner script is not plain needs the parser, and says so.
  assert.throws(() => parseShell("bash -c if"), ParserNotLoadedError);
  assert.throws(() => parseShell("echo 'x'"), ParserNotLoadedError);
});

Deno.test("parseShellLoading loads the parser when a script needs it, and only then", async () => {
  assert.deepEqual((await parseShellLoading("git status")).commands[0].argv, ["git", "status"]);
  assert.throws(() => parseShell("echo 'x'"), ParserNotLoadedError);
  const quoted = await parseShellLoading("echo 'x' | cat");
  assert.deepEqual(quoted.commands.map((c) => c.argv), [["echo", "x"], ["cat"]]);
  assert.doesNotThrow(() => parseShell("echo 'x'"));
});

Deno.test("plainWords leaves everything that is not one plain command to the parser", () => {
  for (const script of NOT_PLAIN) assert.equal(plainWords(script), undefined, script);
});

Deno.test("for every plain command the gate gets what the full parser gives", async () => {
  await loadShellParser();
  const scripts = [...CORPUS, ...generated(1500)];
  let compared = 0;
  for (const script of scripts) {
    if (!plainWords(script)) continue;
    assert.deepEqual(results(script, false), results(script, true), script);
    compared++;
  }
  assert.ok(compared > 800, `compared ${compared}`);
});
