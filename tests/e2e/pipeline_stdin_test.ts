/**
 * What `mopac run` reads from stdin: `--no-stdin` leaves it alone (a `while read`
 * loop keeps its list), `-` as the prompt means the prompt is stdin, a read that
 * does not end says so on stderr once, and a piped run is titled by its prompt.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { cleanDenoEnv, denoFlags, MAIN, type Permissions } from "../_support/run_mopac.ts";
import { DENO_RUN } from "../_support/deps.ts";
import { WAIT_MS, waitFor } from "../_support/wait.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";
import { contentText } from "./_live.ts";

/** mopac's command line for a bash script, under `perms`. */
function mopacLine(perms: Permissions): string {
  return [Deno.execPath(), ...DENO_RUN, ...denoFlags(perms), MAIN].map((a) => `'${a}'`).join(" ");
}

/** Runs a bash script in the workspace with the fake's environment. */
function inBash(dir: string, script: string): Promise<Deno.CommandOutput> {
  return new Deno.Command("bash", {
    args: ["-c", script],
    cwd: dir,
    clearEnv: true,
    env: { ...cleanDenoEnv(), ...FAKE_ENV },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/** The first user message of each request the fake answered. */
function prompts(ws: { fake: { turnRequests(): Array<{ messages: unknown[] }> } }) {
  return ws.fake.turnRequests().map((r) =>
    contentText((r.messages as Array<{ role: string }>).find((m) => m.role === "user") as never)
  );
}

Deno.test("stdin: --no-stdin keeps a while-read loop's list; '-' is the prompt from stdin; the piped run is titled by its prompt", async () => {
  await using ws = await workspace({ turns: () => scriptText("ok") });
  await Deno.writeTextFile(`${ws.dir}/files.txt`, "a.ts\nb.ts\nc.ts\n");
  const mopac = mopacLine(ws.perms);
  const loop = (flag: string) =>
    inBash(ws.dir, `while read f; do ${mopac} run ${flag} "review $f"; done < files.txt`);

  // Without the flag the first run swallows the rest of the list: one run only.
  const swallowed = await loop("");
  assert.equal(swallowed.code, 0, new TextDecoder().decode(swallowed.stderr));
  assert.deepEqual(prompts(ws), ["b.ts\nc.ts\n\nreview a.ts"]);

  const kept = await loop("--no-stdin");
  assert.equal(kept.code, 0, new TextDecoder().decode(kept.stderr));
  assert.equal(new TextDecoder().decode(kept.stdout), "ok\nok\nok\n");
  assert.deepEqual(prompts(ws).slice(1), ["review a.ts", "review b.ts", "review c.ts"]);

  const dash = await ws.run(["run", "-"], { stdin: "the whole prompt\nfrom stdin\n" });
  assert.equal(dash.code, 0, dash.stderr);
  assert.equal(prompts(ws).at(-1), "the whole prompt\nfrom stdin");
  for (const args of [["-", "more"], ["--no-stdin", "-"]]) {
    const bad = await ws.run(["run", ...args], { stdin: "x" });
    assert.equal(bad.code, 2, args.join(" "));
  }

  // Piped context in front of the prompt; the session is titled by the prompt.
  const piped = await ws.run(["run", "-o", "json", "review this diff"], {
    stdin: "diff --git a/x b/x\n+added\n",
  });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(prompts(ws).at(-1), "diff --git a/x b/x\n+added\n\nreview this diff");
  const id = JSON.parse(piped.stdout).session_id;
  const list = await ws.run(["sessions", "list", "--json"]);
  const row = JSON.parse(list.stdout).find((s: { id: string }) => s.id === id);
  assert.equal(row.title, "review this diff");
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("stdin: a read that has not ended after a second says so on stderr, once", async () => {
  await using ws = await workspace({ turns: () => scriptText("ok") });
  // stdin is a pipe nobody writes to or closes yet, as in `sleep 6 | mopac run "hi"`.
  const child = ws.spawn(["run", "hi"], { stdin: "" });
  const errText = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stdout = new Response(child.stdout).text();
  let stderr = "";
  const note = /waiting for stdin to end.*--no-stdin/;
  let ended = false;
  const reading = (async () => {
    for (let r = await errText.read(); !r.done; r = await errText.read()) stderr += r.value;
    ended = true;
  })();
  await waitFor(() => note.test(stderr) || ended, "the note on stderr", WAIT_MS);
  assert.match(stderr, note);
  assert.equal(ws.fake.requests.length, 0, "nothing sent while stdin is open");

  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("late context"));
  await writer.close();
  const status = await child.status;
  await reading;
  assert.equal(status.code, 0, stderr);
  assert.equal(await stdout, "ok\n");
  assert.equal(stderr.match(new RegExp(note, "g"))?.length, 1);
  assert.deepEqual(prompts(ws), ["late context\n\nhi"]);
});

Deno.test("stdin under --allow-all (the installed command): a pipe or a file is read; /dev/null and a socket are not", async () => {
  // With read access everywhere mopac tells stdin's kind from /dev/stdin; elsewhere it
  // asks node:fs (the tests above). A socket that stays open must not be waited on.
  await using ws = await workspace({ turns: () => scriptText("ok") });
  await Deno.writeTextFile(`${ws.dir}/context.txt`, "from a file\n");
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const mopac = mopacLine({ all: true });
  const cases: Array<[string, string, string]> = [
    ["a pipe", `printf 'piped text\\n' | ${mopac} run "hi"`, "piped text\n\nhi"],
    ["a file", `${mopac} run "hi" < context.txt`, "from a file\n\nhi"],
    ["/dev/null", `${mopac} run "hi" < /dev/null`, "hi"],
    // Read, it would never end: `timeout` turns that into a failure (exit 124).
    [
      "a socket",
      `exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port}; timeout 30 ${mopac} run "hi" <&3`,
      "hi",
    ],
  ];
  for (const [kind, script, prompt] of cases) {
    const out = await inBash(ws.dir, script);
    assert.equal(out.code, 0, `${kind}: ${new TextDecoder().decode(out.stderr)}`);
    assert.equal(prompts(ws).at(-1), prompt, kind);
  }
  assert.equal(held.length, 1, "the socket was connected");
  for (const conn of held) conn.close();
  listener.close();
  await accepting.catch(() => {});
});
