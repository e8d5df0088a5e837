// Escape codes are what these tests look for.
// deno-lint-ignore-file no-control-regex
/**
 * Signs of life on stderr while a run waits. On a terminal (a pseudo-terminal made by
 * util-linux `script`, stdout sent to a file): a status line saying what is waited on
 * and for how long, cleared before every other line and at the end, coloured unless
 * NO_COLOR or `--color never`. Through pipes: a line per tool start and end (ok, error,
 * denied, with duration), the provider's retry line, the session at start and end, no
 * escape codes; `-q` silences it. stdout holds only the answer either way.
 */
import assert from "node:assert/strict";
import { scriptFault, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { cleanDenoEnv, denoFlags, MAIN } from "../_support/run_mopac.ts";
import { DENO_RUN } from "../_support/deps.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";

const CLEAR = "\r\x1b[2K";
const hasScript = new Deno.Command("script", { args: ["--version"], stdout: "null" })
  .outputSync().success;
if (!hasScript) console.log("NOTE: util-linux `script` is missing: the terminal tests are skipped");

/** `mopac <args>` with stderr on a pseudo-terminal; stdout goes to a file. */
async function underTerminal(ws: Workspace, args: string[], env: Record<string, string> = {}) {
  const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;
  const argv = [Deno.execPath(), ...DENO_RUN, ...denoFlags(ws.perms), MAIN, ...args];
  const outFile = `${ws.dir}/stdout.txt`;
  const out = await new Deno.Command("script", {
    args: ["-qec", `${argv.map(quote).join(" ")} > ${quote(outFile)}`, "/dev/null"],
    cwd: ws.dir,
    clearEnv: true,
    env: { ...cleanDenoEnv(), ...FAKE_ENV, ...env },
    stdin: "null",
  }).output();
  return {
    code: out.code,
    terminal: new TextDecoder().decode(out.stdout),
    stdout: await Deno.readTextFile(outFile),
  };
}

/** A slow start (the model says nothing for a while) and a tool that takes two seconds. */
const slowRun = () => [
  scriptToolCall("bash", { command: "sleep 2; echo slept" }, "call_sleep", {
    fault: { stallAfterChunks: 1, stallMs: 1200 },
  }),
  scriptText("Slept well."),
];

Deno.test({
  name: "signs of life on a terminal: a status line of what is waited on and how long, cleared",
  ignore: !hasScript,
  async fn() {
    await using ws = await workspace({ turns: slowRun() });
    const r = await underTerminal(ws, ["run", "sleep a bit"]);
    assert.equal(r.code, 0, r.terminal);
    assert.equal(r.stdout, "Slept well.\n", "stdout is the answer alone, no status");
    const t = r.terminal;
    const id = /^mopac: session (\w{8}) · fake\/fake-model · agent coder\r\n/.exec(t)?.[1];
    assert.ok(id, JSON.stringify(t));
    // What is waited on, and for how long: the model, then the tool and its command.
    assert.match(t, /\r\x1b\[2K\S waiting for fake\/fake-model · \d+s/);
    assert.match(t, /\r\x1b\[2K\S running bash · [1-9]\d*s · sleep 2; echo slept/);
    // Lines never land on the status line: each starts on a cleared line.
    for (const line of ["→ bash sleep 2; echo slept\r\n", "← bash ok · "]) {
      assert.ok(t.includes(CLEAR + line), `${JSON.stringify(line)} after a clear`);
    }
    // Cleared at the end: the last thing is the session's end line, on a clean line.
    assert.match(
      t,
      new RegExp(`\\n(\\r\\x1b\\[2K)?mopac: session ${id} done · 2 turns · [^\\r]*\\r\\n$`),
    );
    assert.doesNotMatch(t, /\x1b\[\d+m/, "NO_COLOR: no colour");
  },
});

Deno.test({
  name:
    "signs of life on a terminal: coloured without NO_COLOR, not with --color never; -q shows none",
  ignore: !hasScript,
  async fn() {
    await using ws = await workspace({ turns: () => scriptText("fine") });
    const colourful = { NO_COLOR: "" };
    const coloured = await underTerminal(ws, ["run", "hi"], colourful);
    assert.equal(coloured.code, 0, coloured.terminal);
    assert.match(coloured.terminal, /\x1b\[2mmopac: session \w{8} · /);
    assert.match(coloured.terminal, /\x1b\[36m\S\x1b\[39m \x1b\[2mwaiting for fake\/fake-model/);
    assert.equal(coloured.stdout, "fine\n", "stdout is never coloured");

    const never = await underTerminal(ws, ["run", "--color", "never", "hi"], colourful);
    assert.equal(never.code, 0, never.terminal);
    assert.match(never.terminal, /^mopac: session \w{8} · /);
    assert.doesNotMatch(never.terminal, /\x1b\[\d+m/);

    const quiet = await underTerminal(ws, ["run", "-q", "hi"], colourful);
    assert.equal(quiet.code, 0, quiet.terminal);
    assert.equal(quiet.terminal, "");
    assert.equal(quiet.stdout, "fine\n");
  },
});

Deno.test({
  name:
    "signs of life on a terminal with -o json: the status line on stderr, the result alone on stdout",
  ignore: !hasScript,
  async fn() {
    await using ws = await workspace({ turns: slowRun() });
    const r = await underTerminal(ws, ["run", "-o", "json", "sleep a bit"]);
    assert.equal(r.code, 0, r.terminal);
    assert.equal(JSON.parse(r.stdout).result, "Slept well.");
    assert.match(r.terminal, /waiting for fake\/fake-model · \d+s/);
    assert.match(r.terminal, /running bash · \d+s · sleep 2/);
    // json mode has no progress lines; the status line leaves nothing behind.
    assert.doesNotMatch(r.terminal, /→|←|mopac: session/);
    assert.ok(
      r.terminal === "" || r.terminal.endsWith(CLEAR),
      JSON.stringify(r.terminal.slice(-40)),
    );
  },
});

/** A retried request, then a call that works, one that fails and one the gate denies. */
const threeCalls = () => [
  scriptFault({ status: 503 }),
  scriptToolCall("bash", { command: "sleep 0.2; echo ok" }, "call_ok"),
  scriptToolCall("bash", { command: "exit 3" }, "call_fail"),
  scriptToolCall("bash", { command: "sudo true" }, "call_denied"),
  scriptText("Three calls made."),
];

Deno.test("signs of life through pipes: tool start and end lines, retries, the session; no escapes", async () => {
  await using ws = await workspace({ turns: threeCalls() });
  const r = await ws.run(["run", "make three calls"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Three calls made.\n");
  const lines = r.stderr.trimEnd().split("\n");
  const id = /^mopac: session (\w{8}) · fake\/fake-model · agent coder$/.exec(lines[0])?.[1];
  assert.ok(id, r.stderr);
  assert.match(lines[1], /^fake\/fake-model: attempt 1 failed .*; retrying in \d/);
  assert.equal(lines[2], "→ bash sleep 0.2; echo ok");
  const took = /^← bash ok · (\d+\.\d)s$/.exec(lines[3]);
  assert.ok(took && Number(took[1]) >= 0.2, lines[3]);
  assert.equal(lines[4], "→ bash exit 3");
  assert.match(lines[5], /^← bash error · \d+\.\ds · /);
  assert.equal(lines[6], "→ bash sudo true");
  assert.match(lines[7], /^← bash denied · Permission denied: .*sudo/);
  // The answer streams on stderr too (stdout holds it alone), then the session's end.
  assert.equal(lines[8], "Three calls made.");
  assert.match(lines[9], new RegExp(`^mopac: session ${id} done · 4 turns · \\d+\\.\\ds · \\$`));
  assert.equal(lines.length, 10, r.stderr);
  assert.doesNotMatch(r.stderr, /\x1b|\r/, "no escape codes, no status line");

  await using again = await workspace({ turns: threeCalls() });
  const quiet = await again.run(["run", "-q", "make three calls"]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, "Three calls made.\n");
  assert.equal(quiet.stderr, "", "-q: no progress, no retry line");
});
