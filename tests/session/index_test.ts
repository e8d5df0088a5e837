import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openSessionStore, type SessionStore } from "../../src/session/mod.ts";
import type { DiskSessionStore } from "../../src/session/store.ts";
import { openIndexDb } from "../../src/session/index_db.ts";
import { call, finish, msg, result, text, usage, warnings, withDataDir } from "./_helpers.ts";

/** Three sessions with known totals, messages and file changes. */
async function populate(store: SessionStore) {
  const a = await store.create({ cwd: "/a", title: "alpha" });
  const q = msg("user", [text("Why does the parser choke on trailing commas?")]);
  const ans = msg("assistant", [text("The tokenizer"), call("c1"), finish("tool_calls")], {
    usage: usage(1000, 200, 300),
    cost_usd: 0.02,
    model: "p/m1",
  });
  await a.saveMessage(q, { flush: true });
  await a.saveMessage(ans, { flush: true });
  // A replaced message counts once, with its latest usage.
  ans.usage = usage(1500, 250, 300);
  ans.cost_usd = 0.03;
  await a.saveMessage(ans, { flush: true });
  await a.saveMessage(msg("tool", [result("c1", "parser.ts")]), { flush: true });
  await a.saveMessage(
    msg("assistant", [text("Fixed the comma handling."), finish()], {
      usage: usage(2000, 100),
      cost_usd: 0.01,
      model: "p/m2",
    }),
    { flush: true },
  );
  await a.recordChange({ path: "/a/parser.ts", before: "old", after: "new" }, ans.id);
  await a.recordChange({ path: "/a/new.ts", before: null, after: "x" });
  await a.close();

  const b = await store.create({ cwd: "/b" });
  await b.saveMessage(msg("user", [text("rename the widget factory")]), { flush: true });
  await b.saveMessage(
    msg("assistant", [text("Renamed."), finish()], { usage: usage(10, 5), cost_usd: 0.001 }),
    { flush: true },
  );
  await b.saveMeta({ title: "beta" });
  await b.close();

  const child = await store.create({ cwd: "/a", parent_id: a.id, title: "sub" });
  await child.saveMessage(msg("user", [text("child task about commas")]), { flush: true });
  await child.close();
  return { a: a.id, b: b.id, child: child.id };
}

function check(store: SessionStore, ids: { a: string; b: string; child: string }, total = 3) {
  const all = store.list({ includeChildren: true });
  assert.equal(all.length, total);
  const a = all.find((s) => s.id === ids.a)!;
  assert.equal(a.message_count, 4);
  assert.equal(a.input_tokens, 3500);
  assert.equal(a.output_tokens, 350);
  assert.equal(a.cached_input_tokens, 300);
  assert.ok(Math.abs(a.cost_usd - 0.04) < 1e-9);
  assert.equal(a.model, "p/m2");
  assert.equal(a.title, "alpha");
  assert.equal(a.cwd, "/a");
  assert.equal(store.list().length, total - 1, "children hidden by default");
  assert.equal(store.list().find((s) => s.id === ids.b)?.title, "beta");
  assert.equal(all.find((s) => s.id === ids.child)?.parent_id, ids.a);

  const hits = store.search("commas");
  assert.deepEqual(new Set(hits.map((h) => h.session_id)), new Set([ids.a, ids.child]));
  assert.match(hits.find((h) => h.session_id === ids.child)!.snippet, /\[commas\]/);
  assert.equal(store.search("comma").filter((h) => h.session_id === ids.a).length, 2, "prefix");
  assert.equal(store.search("widget")[0].title, "beta");
  assert.equal(store.search("tokeniz")[0].role, "assistant", "prefix match");
  assert.equal(store.search("parser").length, 1, "user text is indexed");
  assert.equal(store.search("parser.ts").length, 0, "tool results are not");
  assert.deepEqual(store.search('"unbalanced AND ( OR'), [], "FTS syntax in a query is harmless");
  assert.deepEqual(store.search("   "), []);

  const changes = (store as DiskSessionStore).index.fileChanges(ids.a);
  assert.deepEqual(changes.map((c) => [c.path, c.before, c.after]), [
    ["/a/parser.ts", "old", "new"],
    ["/a/new.ts", null, "x"],
  ]);
  assert.ok(changes[0].message_id);
}

Deno.test("index: totals, full-text search and file changes, updated as records are written", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const ids = await populate(store);
    check(store, ids);
    store.close();
  });
});

Deno.test("index: rebuilt after index.db is deleted", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const ids = await populate(store);
    store.close();
    await Deno.remove(join(dir, "index.db"));
    const w = warnings();
    const again = await openSessionStore(dir, { warn: w.warn });
    check(again, ids);
    assert.deepEqual(w.list, [], "a missing index is rebuilt quietly");
    again.close();
  });
});

Deno.test("index: rebuilt when index.db is garbage, damaged inside, or of another version", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const ids = await populate(store);
    // Enough rows that the tables span many pages.
    for (let i = 0; i < 30; i++) {
      const h = await store.create({ cwd: "/x" });
      await h.saveMessage(msg("user", [text(`filler ${i} `.repeat(400))]), { flush: true });
      await h.close();
    }
    store.close();
    const db = join(dir, "index.db");

    await Deno.writeTextFile(db, "this is not a database ".repeat(500));
    let w = warnings();
    let s = await openSessionStore(dir, { warn: w.warn });
    check(s, ids, 33);
    assert.match(w.list.join("\n"), /damaged .*rebuilding/);
    s.close();

    // Overwrite pages in the middle of a valid file.
    const bytes = await Deno.readFile(db);
    assert.ok(bytes.length > 8 * 4096, `index is ${bytes.length} bytes`);
    for (let i = 2 * 4096; i < bytes.length - 4096; i++) bytes[i] = (i * 7919) & 0xff;
    await Deno.writeFile(db, bytes);
    w = warnings();
    s = await openSessionStore(dir, { warn: w.warn });
    check(s, ids, 33);
    assert.match(w.list.join("\n"), /damaged/);
    s.close();

    const raw = new DatabaseSync(db);
    raw.exec("PRAGMA user_version = 99");
    raw.close();
    w = warnings();
    s = await openSessionStore(dir, { warn: w.warn });
    check(s, ids, 33);
    assert.match(w.list.join("\n"), /schema version 99/);
    s.close();
  });
});

Deno.test("index: catches up with files changed or removed behind its back; reindex", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const ids = await populate(store);
    store.close();
    // Another tool appends to a file and deletes another.
    const extra = msg("assistant", [text("late words"), finish()], { usage: usage(1, 1) });
    await Deno.writeTextFile(
      join(dir, "sessions", `${ids.b}.jsonl`),
      JSON.stringify({ type: "message", message: extra }) + "\n",
      { append: true },
    );
    await Deno.remove(join(dir, "sessions", `${ids.child}.jsonl`));
    const s = await openSessionStore(dir);
    const all = s.list({ includeChildren: true });
    assert.deepEqual(all.map((x) => x.id).sort(), [ids.a, ids.b].sort());
    assert.equal(all.find((x) => x.id === ids.b)?.message_count, 3);
    assert.equal(s.search("late words")[0].session_id, ids.b);
    assert.equal(await s.reindex(), 2);
    assert.equal(s.list({ includeChildren: true }).length, 2);
    s.close();
  });
});

Deno.test("rm removes a session with its sub-agent sessions, from files and index", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const ids = await populate(store);
    await store.remove(ids.a);
    assert.deepEqual(store.list({ includeChildren: true }).map((s) => s.id), [ids.b]);
    assert.deepEqual(store.search("commas"), []);
    const left = [...Deno.readDirSync(join(dir, "sessions"))].map((e) => e.name);
    assert.deepEqual(left, [`${ids.b}.jsonl`]);
    store.close();
  });
});

Deno.test("index: opened in WAL mode without fsync (it is derived from the session files)", async () => {
  await withDataDir((dir) => {
    const db = openIndexDb(join(dir, "index.db"), () => {});
    try {
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
      assert.equal(db.prepare("PRAGMA synchronous").get()?.synchronous, 0);
    } finally {
      db.close();
    }
    return Promise.resolve();
  });
});
