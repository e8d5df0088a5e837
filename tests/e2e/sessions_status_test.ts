/**
 * Smaller things a new user met: `sessions list` says how each session's last run ended
 * (its result subtype and exit code, or "unfinished" for one killed mid-run), in the
 * table and in --json; `mopac models FILTER` lists only what matches.
 */
import assert from "node:assert/strict";
import { scriptFault, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";
import { byPrompt, startLive } from "./_live.ts";

Deno.test("sessions list: the status and exit code of each session's last run", async () => {
  await using ws = await workspace({
    turns: byPrompt({
      "finish": [scriptText("done")],
      "loop": [scriptToolCall("bash", { command: "true" })],
      "hang": [scriptFault({ stallAfterChunks: 1, stallMs: 60_000 })],
    }),
  });
  const ids: Record<string, string> = {};
  for (const [prompt, code] of [["finish", 0], ["loop", 4]] as const) {
    const r = await ws.run(["run", "-o", "json", "--max-turns", "1", prompt]);
    assert.equal(r.code, code, r.stderr);
    ids[prompt] = JSON.parse(r.stdout).session_id;
  }
  // Killed outright while it waits for the model: it never says how it ended.
  const live = startLive(ws.spawn(["run", "-o", "stream-json", "hang"]));
  const init = await live.waitFor((e) => e.type === "init", "init");
  await live.waitFor((e) => e.type === "request", "the model request");
  await live.kill();
  ids.hang = init.session_id as string;

  const list = await ws.run(["sessions", "list", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual(
    ["finish", "loop", "hang"].map((p) => {
      const row = byId.get(ids[p])!;
      return [p, row.status, row.exit_code];
    }),
    [["finish", "success", 0], ["loop", "error_max_turns", 4], ["hang", "unfinished", undefined]],
  );

  const table = await ws.run(["sessions", "list"]);
  const lines = table.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^ID\s+STATUS\s+UPDATED/);
  const line = (p: string) => lines.find((l) => l.startsWith(String(byId.get(ids[p])!.short_id)));
  assert.match(line("finish")!, /^\w{8}\s+success \(0\)\s/);
  assert.match(line("loop")!, /^\w{8}\s+error_max_turns \(4\)\s/);
  assert.match(line("hang")!, /^\w{8}\s+unfinished\s/);

  // A resumed session shows its latest run.
  const again = await ws.run(["run", "-o", "json", "-s", ids.loop, "finish"]);
  assert.equal(again.code, 0, again.stderr);
  const after = JSON.parse((await ws.run(["sessions", "list", "--json"])).stdout) as Array<
    Record<string, unknown>
  >;
  const resumed = after.find((r) => r.id === ids.loop)!;
  assert.deepEqual([resumed.status, resumed.exit_code], ["success", 0]);
});

Deno.test("models FILTER: only the providers and models whose id contains it", async () => {
  await using ws = await workspace({ turns: [] });
  const fake = await ws.run(["models", "fake", "--json"]);
  assert.equal(fake.code, 0, fake.stderr);
  const { providers, models } = JSON.parse(fake.stdout);
  assert.deepEqual(providers.map((p: { id: string }) => p.id), ["fake"]);
  assert.deepEqual(models.map((m: { ref: string }) => m.ref), ["fake/fake-model"]);

  const table = await ws.run(["models", "FAKE-MOD"]);
  const shown = table.stdout.trimEnd().split("\n");
  assert.ok(shown.every((l) => /fake/.test(l)), table.stdout);
  assert.match(table.stdout, /^fake\s+ready/);
  assert.match(table.stdout, /\n {2}fake\/fake-model\s/);

  const gpt = JSON.parse((await ws.run(["models", "gpt-4.1", "--json"])).stdout);
  assert.ok(gpt.models.length > 0);
  assert.ok(gpt.models.every((m: { ref: string }) => m.ref.includes("gpt-4.1")), "only matches");

  const none = await ws.run(["models", "no-such-model-anywhere"]);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, "");
  assert.match(none.stderr, /no provider or model matches 'no-such-model-anywhere'/);
});
