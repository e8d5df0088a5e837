/**
 * `--fallback-model` end to end: a main model that fails for good hands the turn to
 * the fallback once, later turns stay there, the retry event and the result say so;
 * an auth failure is not failed over; a bad model name is exit 2 naming the flag.
 */
import assert from "node:assert/strict";
import { scriptFault, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

/** The fake serves the fallback model too (a provider that lists its models serves only those). */
const SERVED = ["fake-model", "fake-fallback"];
const exhausted = () => scriptFault({ status: 429, headers: { "retry-after": "3600" } });

Deno.test("e2e --fallback-model: the failed turn is retried on the fallback, which keeps the run", async () => {
  await using ws = await workspace({
    models: SERVED,
    turns: [
      exhausted(),
      scriptToolCall("view", { file_path: "mopac.json" }),
      scriptText("answered by the fallback"),
    ],
  });
  const r = await ws.run([
    "run",
    "-o",
    "stream-json",
    "--fallback-model",
    "fake/fake-fallback",
    "hi",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const models = ws.fake.requests.map((q) => (q.body as { model: string }).model);
  assert.deepEqual(models, ["fake-model", "fake-fallback", "fake-fallback"]);
  const ev = events(r.stdout);
  const retry = ev.find((e) => e.type === "retry")!;
  assert.equal(retry.model, "fake/fake-fallback");
  assert.match(String(retry.reason), /fake\/fake-model failed: .*trying fake\/fake-fallback/);
  const result = ev.at(-1)!;
  assert.equal(result.result, "answered by the fallback");
  const fallback = result.fallback as { model: string; from: string; reason: string };
  assert.equal(fallback.model, "fake/fake-fallback");
  assert.equal(fallback.from, "fake/fake-model");
  assert.match(fallback.reason, /429|rate/i);
  assert.match(r.stderr, /trying fake\/fake-fallback instead/);
  // The session records the answers as the fallback's.
  const file = [...Deno.readDirSync(`${ws.dir}/.mopac/sessions`)].find((e) =>
    e.name.endsWith(".jsonl")
  )!;
  const lines = (await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${file.name}`)).trim()
    .split("\n").map((l) => JSON.parse(l));
  const answered = lines.filter((l) => l.type === "message" && l.message.role === "assistant")
    .map((l) => l.message.model);
  assert.deepEqual([...new Set(answered)], ["fake/fake-fallback"]);
});

Deno.test("e2e --fallback-model: an auth failure is not failed over (exit 5, one request)", async () => {
  await using ws = await workspace({
    models: SERVED,
    turns: [scriptFault({ status: 401 }), scriptText("never")],
  });
  const r = await ws.run(["run", "-o", "json", "--fallback-model", "fake/fake-fallback", "hi"]);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(ws.fake.requests.length, 1);
  assert.equal(JSON.parse(r.stdout).fallback, undefined);
});

Deno.test("e2e --fallback-model: the fallback failing too ends the run, and the result says it was tried", async () => {
  await using ws = await workspace({ models: SERVED, turns: [exhausted(), exhausted()] });
  const r = await ws.run(["run", "-o", "json", "--fallback-model", "fake/fake-fallback", "hi"]);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(ws.fake.requests.length, 2);
  assert.equal(JSON.parse(r.stdout).fallback.model, "fake/fake-fallback");
});

Deno.test("e2e --fallback-model: an unknown provider or an empty value is exit 2 naming the flag", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  for (
    const [value, message] of [
      ["nosuch/model", /--fallback-model nosuch\/model: /],
      ["", /--fallback-model needs a value/],
    ] as const
  ) {
    const r = await ws.run(["run", "--fallback-model", value, "hi"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  }
  assert.equal(ws.fake.requests.length, 0);
});

Deno.test("e2e --fallback-model: --dry-run names it and makes no request", async () => {
  await using ws = await workspace({ models: SERVED, turns: [] });
  const r = await ws.run(["run", "--dry-run", "--fallback-model", "fake/fake-fallback", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).fallback_model, "fake/fake-fallback");
  assert.equal(ws.fake.requests.length, 0);
});
