import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openSessionStore } from "../../src/session/mod.ts";
import { withDataDir } from "./_helpers.ts";
import { denoHelper } from "./_spawn.ts";

const N = 20;

Deno.test({
  name: "20 writer processes on one data dir: all sessions indexed with correct totals",
  async fn() {
    await withDataDir(async (dir) => {
      const runs = Array.from({ length: N }, (_, k) => {
        const cmd = denoHelper("_writer_proc.ts", dir, [String(k)]);
        const child = cmd.spawn();
        child.stdin.close();
        return child.output().then((o) => ({
          k,
          code: o.code,
          out: new TextDecoder().decode(o.stdout),
          err: new TextDecoder().decode(o.stderr),
        }));
      });
      const results = await Promise.all(runs);
      const byK = new Map<number, string>();
      for (const r of results) {
        assert.equal(r.code, 0, `writer ${r.k} failed:\n${r.err}`);
        assert.doesNotMatch(r.err, /BUSY|locked|warn/i, `writer ${r.k} stderr:\n${r.err}`);
        byK.set(r.k, r.out.trim().replace(/^session /, ""));
      }

      // The index as the writers left it (no catch-up by a store opening).
      const db = new DatabaseSync(join(dir, "index.db"), { readOnly: true });
      const rows = db.prepare(
        "SELECT id, title, message_count, input_tokens, output_tokens, cached_input_tokens, cost_usd FROM sessions",
      ).all();
      const fts = db.prepare("SELECT count(*) AS n FROM message_fts").get() as { n: number };
      const changes = db.prepare("SELECT count(*) AS n FROM file_changes").get() as { n: number };
      db.close();
      assert.equal(rows.length, N);
      assert.equal(fts.n, N * 3, "user, streamed assistant, final assistant per session");
      assert.equal(changes.n, N);
      for (const [k, id] of byK) {
        const row = rows.find((r) => r.id === id);
        assert.ok(row, `session of writer ${k} is indexed`);
        assert.equal(row.title, `run ${k}`);
        assert.equal(row.message_count, 4);
        assert.equal(row.input_tokens, 100 * (k + 1) + 1);
        assert.equal(row.output_tokens, k + 2);
        assert.equal(row.cached_input_tokens, k);
        assert.ok(Math.abs((row.cost_usd as number) - (0.001 * (k + 1) + 0.0001)) < 1e-9);
      }

      const store = await openSessionStore(dir);
      assert.equal(store.list().length, N);
      assert.equal(await store.reindex(), N);
      const after = store.list();
      assert.equal(after.length, N);
      for (const [k, id] of byK) {
        const s = after.find((x) => x.id === id)!;
        assert.equal(s.input_tokens, 100 * (k + 1) + 1);
        const loaded = await store.read(id);
        assert.equal(loaded.messages[1].parts[0].type, "text");
        assert.match((loaded.messages[1].parts[0] as { text: string }).text, /word29 $/);
      }
      store.close();
    });
  },
});
