import assert from "node:assert/strict";
import { isSessionId, newSessionId, openSessionStore, shortIdOf } from "../../src/session/mod.ts";
import { timeOfSessionId } from "../../src/session/ids.ts";
import { pickSession } from "../../src/session/ids.ts";
import type { SessionSummary } from "../../src/session/mod.ts";
import { UsageError } from "../../src/util/errors.ts";
import type { SessionHeader } from "../../src/session/types.ts";
import { msg, text, withDataDir } from "./_helpers.ts";

Deno.test("session ids are UUIDv7, strictly increasing, carrying their time", () => {
  const t = Date.UTC(2026, 0, 2, 3, 4, 5);
  const ids = Array.from({ length: 5000 }, (_, i) => newSessionId(t + Math.floor(i / 1000)));
  for (const id of ids) {
    assert.ok(isSessionId(id), id);
    assert.equal(id[14], "7", "version 7");
    assert.ok("89ab".includes(id[19]), "RFC 9562 variant");
  }
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
  assert.equal(timeOfSessionId(ids[0]), t);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("short id = first 8 hex digits of SHA-256 of the uuid", async () => {
  const id = "01900000-0000-7000-8000-000000000001";
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)),
  );
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(shortIdOf(id), hex.slice(0, 8));
});

const summary = (
  id: string,
  short_id: string,
  updated_at: number,
  title?: string,
) => ({ id, short_id, updated_at, title } as SessionSummary);

Deno.test("resolution: exact id or short id wins over prefixes", () => {
  const a = summary("aaaaaaaa-0000-7000-8000-000000000001", "bbbb0001", 1);
  const b = summary("bbbb0001-0000-7000-8000-000000000002", "cccc0002", 2);
  assert.equal(pickSession("bbbb0001", [a, b]), a, "short id of a, prefix of b's uuid");
  assert.equal(pickSession(" BBBB0001-0000-7000-8000-000000000002 ", [a, b]), b);
});

Deno.test("resolution through the store: full, short, prefixes, ambiguous, not found", async () => {
  await withDataDir(async (dir) => {
    let clock = Date.UTC(2026, 0, 1);
    const store = await openSessionStore(dir, { now: () => clock++ });
    const made: SessionHeader[] = [];
    for (const title of ["one", "two", "three"]) {
      const h = await store.create({ cwd: "/", title });
      await h.close();
      made.push(h.header);
    }
    for (const h of made) {
      assert.equal(store.resolve(h.id).id, h.id);
      assert.equal(store.resolve(h.short_id).id, h.id);
      assert.equal(store.resolve(h.id.slice(0, 35)).id, h.id, "uuid prefix");
      const shortPrefix = h.short_id.slice(0, 6);
      if (made.filter((o) => o.short_id.startsWith(shortPrefix)).length === 1) {
        assert.equal(store.resolve(shortPrefix).id, h.id, "short id prefix");
      }
    }
    // Made in the same minute: their uuids share the time prefix.
    const prefix = made[0].id.slice(0, 8);
    assert.throws(() => store.resolve(prefix), (err: Error) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, /is ambiguous; it matches 3 sessions/);
      for (const h of made) {
        assert.ok(err.message.includes(h.short_id) && err.message.includes(h.id), "lists id");
      }
      assert.match(err.message, /one/);
      assert.match(err.message, /2026-01-01 00:00/, "and when it was updated");
      return true;
    });
    for (const bad of ["ffffffff-ffff", "zzz", "", "../etc/passwd"]) {
      assert.throws(() => store.resolve(bad), (err: Error) => {
        assert.ok(err instanceof UsageError);
        assert.equal(err.message, `session not found: ${bad}`);
        return true;
      });
    }
    await assert.rejects(store.open("nope"), UsageError);
    store.close();
  });
});

Deno.test("a session created by another store after this one opened still resolves", async () => {
  await withDataDir(async (dir) => {
    const reader = await openSessionStore(dir);
    const writer = await openSessionStore(dir);
    const h = await writer.create({ cwd: "/" });
    await h.close();
    writer.close();
    assert.equal(reader.resolve(h.header.short_id).id, h.id);
    reader.close();
  });
});

Deno.test("-C: the latest updated top-level session, never a sub-agent session", async () => {
  await withDataDir(async (dir) => {
    let clock = 1_000;
    const store = await openSessionStore(dir, { now: () => (clock += 10) });
    assert.equal(await store.latestTopLevel(), undefined);
    const a = await store.create({ cwd: "/" });
    const b = await store.create({ cwd: "/" });
    await a.saveMessage(msg("user", [text("touch a")], { updated_at: 5_000 }), { flush: true });
    const child = await store.create({ cwd: "/", parent_id: a.id });
    await child.saveMessage(msg("user", [text("newest of all")], { updated_at: 9_000 }), {
      flush: true,
    });
    assert.equal((await store.latestTopLevel())?.id, a.id);
    await b.saveMessage(msg("user", [text("touch b")], { updated_at: 6_000 }), { flush: true });
    assert.equal((await store.latestTopLevel())?.id, b.id);
    for (const h of [a, b, child]) await h.close();
    store.close();
    // Also from a rebuilt index.
    await Deno.remove(`${dir}/index.db`);
    const again = await openSessionStore(dir);
    assert.equal((await again.latestTopLevel())?.id, b.id);
    again.close();
    const eph = await openSessionStore(dir, { ephemeral: true });
    const e1 = await eph.create({ cwd: "/" });
    await eph.create({ cwd: "/", parent_id: e1.id });
    assert.equal((await eph.latestTopLevel())?.id, e1.id);
    eph.close();
  });
});
