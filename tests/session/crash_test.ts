import assert from "node:assert/strict";
import { openSessionStore, repairForRequest } from "../../src/session/mod.ts";
import { withDataDir } from "./_helpers.ts";
import { denoHelper, Lines } from "./_spawn.ts";
import { checkOpenAiSequence } from "./_openai_check.ts";

Deno.test("SIGKILL mid-stream: everything flushed survives, the session resumes and repairs", async () => {
  await withDataDir(async (dir) => {
    const child = denoHelper("_crash_writer.ts", dir, []).spawn();
    const out = new Lines(child);
    let id = "";
    let flushed = 0;
    try {
      id = (await out.until("session ")).slice("session ".length);
      const line = await out.until(
        (l) => /^flushed (\d+)$/.test(l) && Number(l.slice(8)) >= 60,
      );
      flushed = Number(line.slice(8));
    } finally {
      child.kill("SIGKILL");
      await child.status;
      await out.close();
      await child.stdin.close().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    }
    const store = await openSessionStore(dir);
    assert.equal(store.list()[0]?.id, id, "listed although the writer never closed");
    const h = await store.open(id); // the dead writer's lock is taken over
    const loaded = await h.load();
    assert.deepEqual(loaded.messages.map((m) => m.id), ["u", "a1", "t1", "a2"]);
    const streamed = (loaded.messages[3].parts[0] as { text: string }).text;
    assert.ok(
      streamed.split(" ").includes(`w${flushed}`),
      `w${flushed} was flushed before the kill`,
    );
    const request = repairForRequest(loaded.messages);
    checkOpenAiSequence(request);
    const results = request.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
    assert.deepEqual(results.map((p) => p.type === "tool_result" && [p.tool_call_id, p.is_error]), [
      ["c2", false],
      ["c1", true],
      ["c3", true],
    ]);
    await h.close();
    store.close();
  });
});
