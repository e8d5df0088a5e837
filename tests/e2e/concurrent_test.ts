/**
 * Several `mopac run` processes on one data dir: a second writer on a session in use is
 * refused with the owner's pid, and twenty runs on twenty sessions at once all complete
 * with an index that lists each with its own totals (no SQLITE_BUSY, no lost rows).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { scriptText } from "../_support/fake_openai.ts";
import { type SessionSummary, shortIdOf } from "../../src/session/mod.ts";
import { workspace } from "../_support/workspace.ts";
import {
  byPrompt,
  exists,
  lastUserText,
  sessionMessages,
  sessionPath,
  startLive,
} from "./_live.ts";

Deno.test("concurrent: a second writer on a session in use is refused with the owner's pid", async () => {
  await using ws = await workspace({
    turns: byPrompt({
      // Sends its first words, then nothing until the run is stopped.
      "hold it": [scriptText("held answer", { fault: { stallAfterChunks: 2, stallMs: 30_000 } })],
      "after": [scriptText("after done")],
    }),
  });
  const holder = startLive(ws.spawn(["run", "-o", "stream-json", "hold it"]));
  try {
    const id = (await holder.waitFor((e) => e.type === "init", "init")).session_id as string;
    await holder.waitFor((e) => e.type === "text", "the first text");
    const short = shortIdOf(id);
    for (const pick of [["-s", short.slice(0, 5)], ["-s", id], ["-C"]]) {
      const r = await ws.run(["run", ...pick, "intrude"]);
      assert.equal(r.code, 2, `${pick.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`session ${short} in use by pid ${holder.child.pid}\\b`));
    }
    // A json consumer can tell a busy session from other usage errors.
    const busy = await ws.run(["run", "-C", "-o", "json", "intrude"]);
    const [result] = JSON.parse(`[${busy.stdout.trim()}]`);
    assert.deepEqual([busy.code, result.subtype, result.exit_code], [2, "error_session_busy", 2]);
    assert.match(result.error, /in use by pid/);

    // Reading it is fine while it is in use; removing it is refused like a second writer.
    const show = await ws.run(["sessions", "show", short]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /hold it/);
    const rm = await ws.run(["sessions", "rm", short]);
    assert.equal(rm.code, 2, rm.stderr);
    assert.match(rm.stderr, new RegExp(`in use by pid ${holder.child.pid}\\b`));

    // SIGTERM ends the holder as interrupted (143), saved and unlocked.
    holder.child.kill("SIGTERM");
    const end = await holder.done();
    assert.equal(end.code, 143, end.stderr);
    assert.equal(holder.events.at(-1)!.type, "result");
    assert.equal(holder.events.at(-1)!.subtype, "cancelled");
    assert.ok(!(await exists(sessionPath(ws.dir, id).replace(/jsonl$/, "lock"))));

    const r = await ws.run(["run", "-s", short, "after"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "after done\n");
    const sent = ws.fake.turnRequests().at(-1)!;
    assert.equal(lastUserText(sent), "after");
    assert.ok(sent.messages.some((m) => m.role === "user" && m.content === "hold it"));
    const stored = await sessionMessages(sessionPath(ws.dir, id));
    assert.deepEqual(stored.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await holder.kill();
  }
});

const RUNS = 20;
const usageOf = (n: number) => ({ prompt_tokens: 1000 + n, completion_tokens: 10 + n });
// workspace prices fake-model at $1 per 1M input and $2 per 1M output tokens.
const costOf = (n: number) => ((1000 + n) * 1 + (10 + n) * 2) / 1e6;

Deno.test(`concurrent: ${RUNS} runs on one data dir all complete and are indexed with their totals`, async () => {
  const table: Parameters<typeof byPrompt>[0] = {};
  for (let n = 0; n < RUNS; n++) {
    table[`job ${n}.`] = [scriptText(`answer ${n}`, { usage: usageOf(n) })];
  }
  await using ws = await workspace({ turns: byPrompt(table) });
  const started = Date.now();
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, n) => ws.run(["run", "-o", "json", `job ${n}.`])),
  );
  console.log(`${RUNS} concurrent runs took ${Date.now() - started} ms`);
  const sessionOf = new Map<string, number>();
  runs.forEach((r, n) => {
    assert.equal(r.code, 0, `run ${n}: ${r.stderr}`);
    assert.equal(r.stderr, "", `run ${n} warned`);
    const result = JSON.parse(r.stdout);
    assert.equal(result.result, `answer ${n}`);
    sessionOf.set(result.session_id, n);
  });
  assert.equal(sessionOf.size, RUNS, "each run had its own session");
  assert.equal(ws.fake.requests.length, RUNS);
  assert.deepEqual(ws.fake.rejected, []);

  // The runs themselves left the index current: every row matches its file as written.
  const db = new DatabaseSync(`${ws.dir}/.mopac/index.db`, { readOnly: true });
  try {
    const rows = db.prepare("SELECT id, file_size FROM sessions").all();
    assert.equal(rows.length, RUNS);
    for (const row of rows) {
      const size = (await Deno.stat(sessionPath(ws.dir, row.id as string))).size;
      assert.equal(row.file_size, size, `index row of ${row.id} is behind its file`);
    }
  } finally {
    db.close();
  }

  const r = await ws.run(["sessions", "list", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const listed: SessionSummary[] = JSON.parse(r.stdout);
  assert.equal(listed.length, RUNS);
  for (const s of listed) {
    const n = sessionOf.get(s.id)!;
    assert.ok(n !== undefined, `unknown session ${s.id}`);
    assert.equal(s.message_count, 2);
    assert.equal(s.input_tokens, usageOf(n).prompt_tokens);
    assert.equal(s.output_tokens, usageOf(n).completion_tokens);
    assert.ok(Math.abs(s.cost_usd - costOf(n)) < 1e-12, `cost of job ${n}: ${s.cost_usd}`);
  }
});
