import assert from "node:assert/strict";
import { join } from "node:path";
import { mock } from "node:test";
import { openSessionStore } from "../../src/session/mod.ts";
import { MAX_SNAPSHOT_DELAY_MS, snapshotDelay } from "../../src/session/jsonl_writer.ts";
import { call, finish, msg, result, text, usage, warnings, withDataDir } from "./_helpers.ts";
import { StorageError } from "../../src/util/errors.ts";

const fileOf = (dir: string, id: string) => join(dir, "sessions", `${id}.jsonl`);
const lines = async (path: string) =>
  (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));

Deno.test("round trip: what is written is what is loaded, by a new store too", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const h = await store.create({ cwd: "/work", title: "first" });
    const user = msg("user", [text("list files")]);
    const asst = msg("assistant", [text("sure"), call("c1"), finish("tool_calls")], {
      model: "litellm/gpt",
      usage: usage(100, 20, 10),
      cost_usd: 0.01,
    });
    const tool = msg("tool", [result("c1", "a.ts\nb.ts")]);
    for (const m of [user, asst, tool]) await h.saveMessage(m, { flush: true });
    await h.saveMeta({ todos: [{ content: "x", status: "pending" }], viewed: { "/a": 1 } });
    await h.recordChange({ path: "/work/a.ts", before: null, after: "x" }, asst.id);
    // The index follows the writes while the session is still open.
    assert.equal(store.list()[0].message_count, 3);
    assert.equal(store.list()[0].cost_usd, 0.01);
    const live = await h.load();
    await h.close();
    store.close();

    const again = await openSessionStore(dir);
    const loaded = await again.read(h.header.short_id);
    assert.deepEqual(loaded.messages, [user, asst, tool]);
    assert.deepEqual(loaded, live);
    assert.equal(loaded.header.cwd, "/work");
    assert.equal(loaded.header.title, "first");
    assert.deepEqual(loaded.meta.todos, [{ content: "x", status: "pending" }]);
    assert.equal(loaded.last_model, "litellm/gpt");
    assert.equal(loaded.changes[0].change.path, "/work/a.ts");
    assert.equal(loaded.changes[0].message_id, asst.id);
    const [summary] = again.list();
    assert.equal(summary.message_count, 3);
    assert.equal(summary.input_tokens, 100);
    assert.equal(summary.title, "first");
    again.close();
    // The file: header first, one line per record, no lock left behind.
    const recs = await lines(fileOf(dir, h.id));
    assert.equal(recs[0].type, "session");
    assert.equal(recs[0].id, h.id);
    assert.deepEqual(recs.map((r) => r.type), [
      "session",
      "message",
      "message",
      "message",
      "meta",
      "file_change",
    ]);
    await assert.rejects(Deno.stat(join(dir, "sessions", `${h.id}.lock`)), Deno.errors.NotFound);
  });
});

Deno.test("a later record with the same message id replaces it, in first-seen order", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const h = await store.create({ cwd: "/" });
    const a = msg("user", [text("one")]);
    const b = msg("assistant", [text("par")]);
    await h.saveMessage(a, { flush: true });
    await h.saveMessage(b, { flush: true });
    b.parts = [text("partial answer"), finish()];
    b.finished_at = 1_700_000_100_000;
    await h.saveMessage(b, { flush: true });
    await h.saveMeta({ title: "t1", model: "x/y" });
    await h.saveMeta({ title: "t2" });
    await h.close();
    const loaded = await store.read(h.id);
    assert.deepEqual(loaded.messages.map((m) => m.id), [a.id, b.id]);
    assert.deepEqual(loaded.messages[1].parts, [text("partial answer"), finish()]);
    assert.equal(loaded.meta.title, "t2"); // later fields win
    assert.equal(loaded.meta.model, "x/y"); // earlier fields stay
    assert.equal(store.list()[0].title, "t2");
    store.close();
  });
});

Deno.test("streaming snapshots are debounced; flush writes at once", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir, { debounceMs: 40 });
    const h = await store.create({ cwd: "/" });
    const path = fileOf(dir, h.id);
    const m = msg("assistant", []);
    // Fake timers: the burst cannot outlast the debounce however slow the machine is.
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      for (let i = 0; i < 50; i++) {
        m.parts = [text("x".repeat(i + 1))];
        await h.saveMessage(m);
      }
      assert.equal((await lines(path)).length, 1, "nothing but the header before the timer");
      mock.timers.tick(39);
      assert.equal((await lines(path)).length, 1, "not before the debounce is over");
      mock.timers.tick(1);
    } finally {
      mock.timers.reset();
    }
    const afterTimer = await lines(path);
    assert.equal(afterTimer.length, 2, "one line for the whole burst");
    assert.equal(afterTimer[1].message.parts[0].text.length, 50, "the newest snapshot");

    m.parts = [text("final"), finish()];
    m.finished_at = 1_700_000_100_000;
    await h.saveMessage(m, { flush: true });
    assert.equal((await lines(path)).at(-1).message.parts[0].text, "final");
    m.parts = [text("final+")];
    delete m.finished_at;
    await h.saveMessage(m);
    await h.flush();
    assert.equal((await lines(path)).at(-1).message.parts[0].text, "final+");
    await h.close();
    store.close();
  });
});

Deno.test("the snapshot interval grows with the message, from the debounce up to 1 s", () => {
  assert.equal(snapshotDelay(50, 100), 50);
  assert.equal(snapshotDelay(50, 8_000), 500);
  assert.equal(snapshotDelay(50, 1_000_000), MAX_SNAPSHOT_DELAY_MS);
  assert.equal(MAX_SNAPSHOT_DELAY_MS, 1000);
  assert.equal(snapshotDelay(2000, 10), 2000);
});

Deno.test("finished_at only with a finish part; malformed messages are refused", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const h = await store.create({ cwd: "/" });
    const bad = msg("assistant", [text("x")], { finished_at: 5 });
    await assert.rejects(
      h.saveMessage(bad, { flush: true }),
      /finished_at is set only by a finish part/,
    );
    const twoFinish = msg("assistant", [finish(), text("x")]);
    await assert.rejects(h.saveMessage(twoFinish), /finish part must be the last/);
    // deno-lint-ignore no-explicit-any
    const wrong = { ...msg("user", [text("x")]), role: "robot" } as any;
    await assert.rejects(h.saveMessage(wrong), /unknown role/);
    // A finish part without finished_at gets it from the part.
    const ok = msg("assistant", [text("x"), finish()]);
    delete ok.finished_at;
    await h.saveMessage(ok, { flush: true });
    assert.equal((await h.load()).messages[0].finished_at, 1_700_000_100_000);
    await h.close();
    store.close();
  });
});

Deno.test("a torn last line is skipped and the next append starts a new line", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const h = await store.create({ cwd: "/" });
    const m1 = msg("user", [text("hello")]);
    await h.saveMessage(m1, { flush: true });
    await h.close();
    const path = fileOf(dir, h.id);
    await Deno.writeTextFile(path, '{"type":"message","message":{"id":"tor', { append: true });
    const w = warnings();
    store.close();
    const s2 = await openSessionStore(dir, { warn: w.warn });
    const h2 = await s2.open(h.header.short_id);
    assert.deepEqual((await h2.load()).messages, [m1]);
    assert.equal(w.list.length, 1);
    assert.match(w.list[0], /torn last line \(line 3\)/);
    const m2 = msg("user", [text("again")]);
    await h2.saveMessage(m2, { flush: true });
    await h2.close();
    const w2 = warnings();
    const loaded = await s2.read(h.id);
    assert.deepEqual(loaded.messages, [m1, m2]);
    s2.close();
    const s3 = await openSessionStore(dir, { warn: w2.warn });
    await s3.read(h.id);
    assert.equal(w2.list.length, 1, "reported once per read");
    assert.match(w2.list[0], /skipped 1 malformed line \(line 3\)/);
    assert.ok(w2.list[0].includes(path));
    s3.close();
  });
});

Deno.test("ephemeral store: same interface, writes nothing", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(join(dir, "data"), { ephemeral: true });
    const h = await store.create({ cwd: "/" });
    const m = msg("assistant", [text("hello world"), finish()], { usage: usage(5, 6) });
    await h.saveMessage(m, { flush: true });
    assert.equal(store.list()[0].output_tokens, 6);
    assert.equal(store.search("world")[0].message_id, m.id);
    await assert.rejects(store.open(h.id), /in use/);
    await h.close();
    const h2 = await store.open(h.header.short_id.slice(0, 5));
    assert.deepEqual((await h2.load()).messages, [m]);
    await h2.close();
    store.close();
    await assert.rejects(Deno.stat(join(dir, "data")), Deno.errors.NotFound);
  });
});

Deno.test("a session file removed or replaced under an open handle: the next write fails, naming it", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const removed = await store.create({ cwd: "/work" });
    const replaced = await store.create({ cwd: "/work" });
    await Deno.remove(fileOf(dir, removed.id));
    await assert.rejects(
      removed.saveMessage(msg("user", [text("hi")]), { flush: true }),
      (err: Error) => {
        assert.ok(err instanceof StorageError);
        assert.equal(err.path, fileOf(dir, removed.id));
        assert.match(err.message, /cannot write the session file .*: the file was removed/);
        return true;
      },
    );
    // Renamed over: the handle's file is no longer the one at its path.
    await Deno.writeTextFile(`${dir}/other`, "");
    await Deno.rename(`${dir}/other`, fileOf(dir, replaced.id));
    await assert.rejects(replaced.saveMeta({ title: "t" }), /the file was replaced/);
    assert.equal(await Deno.readTextFile(fileOf(dir, replaced.id)), "");
    store.close();
  });
});

Deno.test("a loaded session's arrays and meta are the caller's: changing them stores nothing", async () => {
  await withDataDir(async (dir) => {
    const store = await openSessionStore(dir);
    const h = await store.create({ cwd: "/" });
    await h.saveMessage(msg("user", [text("hi")]), { flush: true });
    await h.saveMeta({ title: "kept", todos: [] });
    const first = await h.load();
    first.messages.push(msg("assistant", [text("not said")]));
    first.meta.title = "changed";
    (first.meta.todos as unknown[]).push("x");
    first.changes.push(first.changes[0]);
    first.denials.push(first.denials[0]);
    const check = (again: Awaited<ReturnType<typeof h.load>>) => {
      assert.equal(again.messages.length, 1);
      assert.equal(again.meta.title, "kept");
      assert.deepEqual(again.meta.todos, []);
      assert.deepEqual([again.changes.length, again.denials.length], [0, 0]);
    };
    check(await h.load());
    await h.close();
    const reopened = await store.open(h.id);
    check(await reopened.load());
    await reopened.close();
    store.close();
  });
});
