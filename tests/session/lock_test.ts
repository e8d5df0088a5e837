import assert from "node:assert/strict";
import { join } from "node:path";
import { openSessionStore } from "../../src/session/mod.ts";
import { SessionBusyError } from "../../src/util/errors.ts";
import { FOREIGN_LOCK_TTL_MS, hostName, pidAlive } from "../../src/session/lock.ts";
import { msg, text, withDataDir } from "./_helpers.ts";
import { denoHelper, Lines } from "./_spawn.ts";

const lockPath = (dir: string, id: string) => join(dir, "sessions", `${id}.lock`);

async function newSession(dir: string): Promise<{ id: string; short: string }> {
  const store = await openSessionStore(dir);
  const h = await store.create({ cwd: "/" });
  await h.saveMessage(msg("user", [text("hi")]), { flush: true });
  await h.close();
  store.close();
  return { id: h.id, short: h.header.short_id };
}

Deno.test("a session held by another process is refused; after it is killed, taken over", async () => {
  await withDataDir(async (dir) => {
    const { id, short } = await newSession(dir);
    const child = denoHelper("_lock_holder.ts", dir, [id]).spawn();
    const out = new Lines(child);
    try {
      const line = await out.until("locked ");
      const pid = Number(line.split(" ")[1]);
      const store = await openSessionStore(dir);
      await assert.rejects(store.open(short), (err: Error) => {
        assert.ok(err instanceof SessionBusyError);
        assert.equal(err.message, `session ${short} in use by pid ${pid}`);
        return true;
      });
      await assert.rejects(store.remove(id), SessionBusyError);
      // A reader is never blocked by the writer's lock.
      assert.equal((await store.read(id)).messages.length, 1);

      child.kill("SIGKILL");
      await child.status;
      // The lock file is still there (nobody removed it), but its owner is gone.
      assert.equal(JSON.parse(await Deno.readTextFile(lockPath(dir, id))).pid, pid);
      const h = await store.open(short);
      const owner = JSON.parse(await Deno.readTextFile(lockPath(dir, id)));
      assert.equal(owner.pid, Deno.pid);
      assert.equal(typeof owner.started_at, "number");
      await h.close();
      await assert.rejects(Deno.stat(lockPath(dir, id)), Deno.errors.NotFound);
      store.close();
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already dead
      }
      await child.status;
      await out.close();
      await child.stdin.close().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    }
  });
});

Deno.test("a holder that exits normally releases the lock (the file is removed)", async () => {
  await withDataDir(async (dir) => {
    const { id } = await newSession(dir);
    const child = denoHelper("_lock_holder.ts", dir, [id]).spawn();
    const out = new Lines(child);
    await out.until("locked ");
    await child.stdin.close();
    assert.equal((await child.status).code, 0);
    await out.close();
    await child.stderr.cancel().catch(() => {});
    await assert.rejects(Deno.stat(lockPath(dir, id)), Deno.errors.NotFound);
  });
});

Deno.test("a stale lock of a dead pid is taken over", async () => {
  await withDataDir(async (dir) => {
    const { id, short } = await newSession(dir);
    // A pid that existed and is now dead: a finished child process.
    const done = await new Deno.Command(Deno.execPath(), { args: ["eval", "0"] }).spawn();
    await done.status;
    await Deno.writeTextFile(
      lockPath(dir, id),
      JSON.stringify({ pid: done.pid, host: hostName(), started_at: Date.now() }),
    );
    const store = await openSessionStore(dir);
    const h = await store.open(short);
    assert.equal(JSON.parse(await Deno.readTextFile(lockPath(dir, id))).pid, Deno.pid);
    await h.close();
    store.close();
  });
});

Deno.test("a second writer in the same process is refused; close and closeSync release", async () => {
  await withDataDir(async (dir) => {
    const { id } = await newSession(dir);
    const store = await openSessionStore(dir);
    const h = await store.open(id);
    await assert.rejects(store.open(id), /in use by pid/);
    h.closeSync();
    const h2 = await store.open(id);
    await assert.rejects(store.open(id), SessionBusyError);
    await h2.close();
    const h3 = await store.open(id);
    store.close(); // closes open handles too
    await assert.rejects(Deno.stat(lockPath(dir, id)), Deno.errors.NotFound);
    await assert.rejects(h3.saveMessage(msg("user", [text("late")])), /closed/);
  });
});

Deno.test("a lock owned on another host counts as live for a day, then as stale", async () => {
  const here = hostName();
  if (!here) return; // no --allow-sys: host names cannot be compared
  await withDataDir(async (dir) => {
    const { id, short } = await newSession(dir);
    const store = await openSessionStore(dir);
    const write = (started_at: number) =>
      Deno.writeTextFile(
        lockPath(dir, id),
        JSON.stringify({ pid: 1, host: `${here}-elsewhere`, started_at }),
      );
    await write(Date.now() - 1000);
    await assert.rejects(store.open(short), /in use by pid 1 on .*-elsewhere/);
    await write(Date.now() - FOREIGN_LOCK_TTL_MS - 1000);
    const h = await store.open(short);
    await h.close();
    store.close();
  });
});

Deno.test("pidAlive: this process lives, one that has exited does not", async () => {
  assert.equal(pidAlive(Deno.pid), true);
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  assert.equal(pidAlive(child.pid), false);
});
