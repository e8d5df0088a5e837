/**
 * StorageWatch: the first failed session write of a run aborts the run's signal with
 * its StorageError, including writes nobody awaits (a tool recording its file change
 * or its state), which must never become an unhandled rejection (a crash, exit 1).
 */
import assert from "node:assert/strict";
import { StorageWatch } from "../../src/app/storage_watch.ts";
import { emptyState, sessionToolContext } from "../../src/app/open_session.ts";
import type { SessionWriter } from "../../src/session/types.ts";
import { StorageError } from "../../src/util/errors.ts";

function failingWriter(err: Error): SessionWriter {
  const fail = () => Promise.reject(err);
  return {
    id: "s1",
    saveMessage: fail,
    liveMessage: () => ({ changed() {} }),
    saveMeta: fail,
    recordChange: fail,
    flush: fail,
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("storage watch: a background write that fails aborts the run, never the process", async () => {
  const full = new StorageError("/d/s1.jsonl", "cannot write the session file /d/s1.jsonl: full");
  const watch = new StorageWatch();
  const ctx = sessionToolContext({
    writer: watch.watch(failingWriter(full)),
    state: emptyState("/w"),
    workspace: "/w",
    env: {},
    attachments: false,
  });
  ctx.recordChange({ path: "/w/a.txt", before: null, after: "x" });
  ctx.stateChanged();
  await tick();
  assert.ok(watch.signal.aborted);
  assert.equal(watch.signal.reason, full);
});

Deno.test("storage watch: an awaited write's failure is passed on; only storage failures abort", async () => {
  const watch = new StorageWatch();
  const bug = new TypeError("cannot save an invalid meta record");
  await assert.rejects(watch.watch(failingWriter(bug)).saveMeta({}), bug);
  assert.equal(watch.signal.aborted, false);
  const gone = new StorageError("/d/s1.jsonl", "the file was removed");
  await assert.rejects(watch.watch(failingWriter(gone)).flush(), gone);
  assert.equal(watch.signal.reason, gone);
});
