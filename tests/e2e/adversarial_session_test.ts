/**
 * Hostile conditions around a run: damaged or unwritable session files, a reader that
 * closes the pipe early, colour settings, and signals while text is streaming.
 * Nothing on disk is lost, and the exit code says what happened.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { cleanDenoEnv, denoFlags, MAIN } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { DENO_RUN } from "../_support/deps.ts";

const run = (ws: Workspace, ...args: string[]) => ws.run(args);

/** Runs one session into the workspace and hands back its file. */
async function firstSession(ws: Workspace): Promise<{ id: string; path: string }> {
  const r = await run(ws, "run", "-o", "json", "hello");
  assert.equal(r.code, 0, r.stderr);
  const id = JSON.parse(r.stdout).session_id as string;
  return { id, path: `${ws.dir}/.mopac/sessions/${id}.jsonl` };
}

/** chattr +i makes a file unwritable even for root (as tests here often run); not everywhere. */
async function chattr(flag: "+i" | "-i", path: string): Promise<boolean> {
  try {
    const out = await new Deno.Command("chattr", { args: [flag, path], stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}
const probe = await Deno.makeTempFile();
const CAN_CHATTR = await chattr("+i", probe) && await chattr("-i", probe);
await Deno.remove(probe);

Deno.test("adversarial: a session file of garbage or cut in half still lists, shows and continues", async () => {
  await using ws = await workspace({
    turns: [scriptText("first"), scriptText("second"), scriptText("third"), scriptText("fourth")],
  });
  for (const damage of ["garbage", "half"] as const) {
    const { id, path } = await firstSession(ws);
    const text = await Deno.readTextFile(path);
    const damaged = damage === "garbage"
      ? "\u0000garbage{{{\nnot json at all\n"
      : text.slice(0, Math.floor(text.length / 2));
    await Deno.writeTextFile(path, damaged);

    const list = await run(ws, "sessions", "list");
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stderr, /malformed|torn/, `${damage}: the damage is reported`);
    const show = await run(ws, "sessions", "show", id);
    assert.equal(show.code, 0, show.stderr);
    const more = await run(ws, "run", "-s", id, "go on");
    assert.equal(more.code, 0, more.stderr);
    assert.ok((await Deno.readTextFile(path)).startsWith(damaged), `${damage}: nothing lost`);
  }
  assert.deepEqual(ws.fake.rejected, [], "the repaired history is one the API accepts");
});

Deno.test({
  name: "adversarial: an unwritable session is exit 2 naming the file, not an internal error",
  ignore: !CAN_CHATTR,
  fn: async () => {
    await using ws = await workspace({ turns: [scriptText("first")] });
    let path = "";
    try {
      const first = await firstSession(ws);
      path = first.path;
      const id = first.id;
      const before = await Deno.readTextFile(path);
      assert.ok(await chattr("+i", path));
      for (const args of [["-C", "again"], ["-s", id, "again"]]) {
        const r = await run(ws, "run", ...args);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`cannot write .*${id}\\.jsonl: Operation not permitted`));
        assert.doesNotMatch(r.stderr, /internal error/);
      }
      assert.equal((await run(ws, "sessions", "show", id)).code, 0, "still readable");
      assert.equal(await Deno.readTextFile(path), before);
      assert.equal(ws.fake.requests.length, 1);
    } finally {
      if (path) await chattr("-i", path);
    }
  },
});

Deno.test("adversarial: a reader closing the pipe early (| head -c 5) ends cleanly and the session keeps all", async () => {
  const answer = "0123456789".repeat(20_000);
  await using ws = await workspace({ turns: [scriptText(answer, { chunkSize: 100 })] });
  const mopac = [Deno.execPath(), ...DENO_RUN, ...denoFlags(ws.perms), MAIN, "run", "hi"]
    .map((a) => `'${a}'`).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `${mopac} | head -c 5; echo " exit=\${PIPESTATUS[0]}" >&2`],
    cwd: ws.dir,
    clearEnv: true,
    env: { ...cleanDenoEnv(), ...FAKE_ENV },
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(new TextDecoder().decode(out.stdout), "01234");
  // The session's line, the answer streamed on stderr, the session's end, then the
  // shell's exit status: no complaint about the pipe in between.
  const id = /^mopac: session (\w{8}) · [^\n]*\n/.exec(stderr)?.[1];
  assert.ok(id, stderr.slice(0, 200));
  assert.ok(stderr.includes(`\n${answer}\n`), "the answer streamed on stderr");
  assert.match(
    stderr.slice(-300),
    new RegExp(`\\nmopac: session ${id} done · [^\\n]*\\n exit=0\\n$`),
  );
  const [file] = [...Deno.readDirSync(`${ws.dir}/.mopac/sessions`)]
    .filter((e) => e.name.endsWith(".jsonl"));
  const saved = await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${file.name}`);
  assert.ok(saved.includes(answer), "the whole answer is in the session");
});

Deno.test("adversarial: with NO_COLOR unset stdout is the plain answer; -q leaves stderr empty on success", async () => {
  await using ws = await workspace({
    turns: [
      { tool_calls: [{ name: "bash", arguments: { command: "ls --color=always; echo done" } }] },
      { fault: { status: 500 } },
      scriptText("all done"),
    ],
  });
  const env: Record<string, string> = { ...cleanDenoEnv(), ...FAKE_ENV, TERM: "xterm-256color" };
  delete env.NO_COLOR;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, ...denoFlags(ws.perms), MAIN, "run", "-q", "list"],
    cwd: ws.dir,
    clearEnv: true,
    env,
  }).output();
  const [stdout, stderr] = [out.stdout, out.stderr].map((b) => new TextDecoder().decode(b));
  assert.equal(out.code, 0, stderr);
  assert.equal(stdout, "all done\n");
  assert.equal(stderr, "", "a tool call and a retry, yet -q prints nothing");
});

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`adversarial: ${signal} while text streams: exit ${code}, the partial line ends, resume works`, async () => {
    const long = "partial answer that keeps going ".repeat(200);
    await using ws = await workspace({
      turns: [scriptText(long, { chunkSize: 8, delayMs: 20 }), scriptText("resumed")],
    });
    const child = ws.spawn(["run", "hi"]);
    try {
      // The text streams on stderr (progress); an interrupted run has no answer for stdout.
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let stderr = "";
      const bound = setTimeout(() => child.kill("SIGKILL"), 20_000);
      // The session's line, then at least 16 characters of the answer.
      const streamed = () => stderr.length - (stderr.indexOf("\n") + 1);
      while (!stderr.includes("\n") || streamed() < 16) {
        const { value, done } = await reader.read();
        if (done) break;
        stderr += value;
      }
      child.kill(signal);
      for (let r = await reader.read(); !r.done; r = await reader.read()) stderr += r.value;
      const status = await child.status;
      clearTimeout(bound);
      const stdout = await new Response(child.stdout).text();
      assert.equal(status.code, code, stderr);
      assert.equal(stdout, "");
      // The session's line, the part of the answer that streamed (on stderr), the
      // interruption, the session's end and how to go on with it.
      const id = /^mopac: session (\w{8}) · [^\n]*\n/.exec(stderr)?.[1];
      assert.ok(id, stderr.slice(0, 200));
      const tail = new RegExp(
        `\\nmopac: interrupted by ${signal}\\n` +
          `mopac: session ${id} ended: cancelled · [^\\n]*\\n` +
          `hint: resume with mopac run -s ${id} "…"\\n$`,
      ).exec(stderr);
      assert.ok(tail, JSON.stringify(stderr.slice(-300)));
      const shown = stderr.slice(stderr.indexOf("\n") + 1, tail.index);
      assert.ok(long.startsWith(shown) && shown.length < long.length, JSON.stringify(shown));

      const again = await run(ws, "run", "-C", "go on");
      assert.equal(again.code, 0, again.stderr);
      const sent = ws.fake.turnRequests()[1].messages.slice(1);
      assert.deepEqual(sent.map((m) => m.role), ["user", "assistant", "user"]);
      assert.ok(long.startsWith(String(sent[1].content)), "the partial answer was kept");
      assert.deepEqual(ws.fake.rejected, []);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* already ended */ }
    }
  });
}
