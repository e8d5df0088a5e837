/**
 * Resuming needs nothing but the prompt: the session is found before any model is
 * resolved, so `-C` without `-m` comes back on the session's model even when config
 * selects none, and a wrong `-s` id is named as such.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("resume: -C and -s need no -m (config selects no model), a wrong id is 'session not found'", async () => {
  // No models.large: only the session knows its model.
  await using ws = await workspace({ turns: () => scriptText("ok") }, { models: {} });
  const noModel = await ws.run(["run", "hi"]);
  assert.equal(noModel.code, 2);
  assert.match(noModel.stderr, /no model selected/);

  const first = await ws.run(["run", "-m", "fake/fake-model", "-o", "stream-json", "one"]);
  assert.equal(first.code, 0, first.stderr);
  const id = events(first.stdout)[0].session_id as string;

  // The README's own example.
  const again = await ws.run(["run", "-C", "-o", "stream-json", "and again"]);
  assert.equal(again.code, 0, again.stderr);
  const init = events(again.stdout)[0];
  assert.equal(init.session_id, id);
  assert.equal(init.model, "fake/fake-model");

  const byId = await ws.run(["run", "-s", id.slice(0, 8), "once more"]);
  assert.equal(byId.code, 0, byId.stderr);
  assert.equal(byId.stdout, "ok\n");

  const wrong = await ws.run(["run", "-s", "nope", "x"]);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /session not found: nope/);
  assert.doesNotMatch(wrong.stderr, /no model selected/);

  // Three runs reached the model, each with the whole conversation so far.
  const requests = ws.fake.turnRequests();
  assert.equal(requests.length, 3);
  assert.equal(requests[2].messages.filter((m) => m.role === "user").length, 3);
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("resume: with no session yet, -C says so; --ephemeral with -C or -s is a usage error", async () => {
  await using ws = await workspace({ turns: [] }, { models: {} });
  const none = await ws.run(["run", "-C", "x"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no session to continue/);

  for (const flag of [["-C"], ["-s", "abc"]]) {
    const r = await ws.run(["run", "--ephemeral", ...flag, "x"]);
    assert.equal(r.code, 2, flag.join(" "));
    assert.match(r.stderr, /--ephemeral cannot continue a session/);
  }
  assert.equal(ws.fake.requests.length, 0);
});
