/**
 * A slow stdout reader is not a silent provider (issue 16): with `request_timeout: 1`
 * and a 300 KB answer, mopac reads the whole stream and finishes the run while
 * nobody reads its stdout (the session file holds the finished answer), then delivers
 * every byte once the reader comes. One request, no `retry`, the answer intact.
 *
 * The reader stays away until the run's answer is on disk; should that never happen
 * (mopac blocked on its stdout, the failure this test is about) it gives up waiting
 * after 10 idle timeouts and reads, and the assertions say what went wrong.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { events, spawnMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";

const ANSWER = Array.from({ length: 6_000 }, (_, i) => `line ${i} of a long answer.`).join("\n");

/** True once a session file holds a finished assistant message. */
async function answerOnDisk(dir: string): Promise<boolean> {
  try {
    for await (const e of Deno.readDir(`${dir}/.mopac/sessions`)) {
      if (!e.name.endsWith(".jsonl")) continue;
      const text = await Deno.readTextFile(`${dir}/.mopac/sessions/${e.name}`);
      if (text.includes('"role":"assistant"') && text.includes('"reason":"stop"')) return true;
    }
  } catch {
    // not there yet
  }
  return false;
}

for (const output of ["stream-json", "text"] as const) {
  Deno.test(`e2e slow reader (${output}): stdout backpressure is no provider silence`, async () => {
    assert.ok(ANSWER.length > 150_000);
    const ws = await workspace(
      { turns: [scriptText(ANSWER, { chunkSize: 4_096 })] },
      { options: { request_timeout: 1 } },
    );
    const child = spawnMopac(["run", "-o", output, "write a lot"], {
      cwd: ws.dir,
      perms: ws.perms,
      env: FAKE_ENV,
    });
    try {
      const stderr = new Response(child.stderr).text();
      // The reader is away: the pipe fills after 64 KB, long before the answer is out.
      const deadline = Date.now() + 10_000;
      while (!(await answerOnDisk(ws.dir)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const onDisk = await answerOnDisk(ws.dir);
      const stdout = await new Response(child.stdout).text();
      const { code } = await child.status;
      assert.equal(code, 0, await stderr);
      assert.ok(onDisk, "the run finished while its stdout was not read");
      assert.equal(ws.fake.turnRequests().length, 1, "exactly one provider request");
      assert.doesNotMatch(await stderr, /retrying|stalled/);
      if (output === "text") {
        assert.equal(stdout, ANSWER + "\n");
      } else {
        const ev = events(stdout);
        assert.deepEqual(ev.filter((e) => e.type === "retry"), []);
        const text = ev.filter((e) => e.type === "text").map((e) => e.delta).join("");
        assert.equal(text, ANSWER);
        assert.equal(ev.at(-1)!.subtype, "success");
      }
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited
      }
      await ws.close();
    }
  });
}
