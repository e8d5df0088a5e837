/**
 * `--max-cost` either holds or refuses to start: a model without a price is exit 2
 * before any request (naming the model and the keys that price it), a tiny limit is
 * a limit, and a run whose last turn goes past it ends `error_budget`, not `success`.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

/** Adds models to the fake provider of the workspace's mopac.json. */
async function addModels(ws: Workspace, models: Array<Record<string, unknown>>) {
  const path = `${ws.dir}/mopac.json`;
  const config = JSON.parse(await Deno.readTextFile(path));
  config.providers.fake.models.push(...models);
  // A gateway: it serves ids it does not list (and knows no price for them).
  config.providers.gw = { ...config.providers.fake, type: "litellm", models: [] };
  await Deno.writeTextFile(path, JSON.stringify(config, null, 2));
}

Deno.test("--max-cost: an unpriced model is exit 2 at preflight; a tiny limit holds; overshoot in the last turn is error_budget", async () => {
  await using ws = await workspace({ turns: () => scriptText("done") });
  await addModels(ws, [
    { id: "no-price", name: "No price", context_window: 128000 },
    { id: "free", name: "Free", cost_per_1m_in: 0, cost_per_1m_out: 0 },
  ]);

  // A configured model without costs, an id the provider passes through, and a limit
  // from the environment rather than the flag: all refused before any request.
  const refusals: Array<[string[], Record<string, string>, string]> = [
    [["-m", "fake/no-price", "--max-cost", "0.0001"], {}, "fake/no-price"],
    [["-m", "gw/passed-through", "--max-cost", "0.0001"], {}, "gw/passed-through"],
    [["-m", "fake/no-price"], { MOPAC_MAX_COST: "1" }, "fake/no-price"],
  ];
  for (const [flags, env, label] of refusals) {
    const r = await ws.run(["run", "-o", "json", ...flags, "x"], { env });
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`model ${label} has no price`), r.stderr);
    assert.match(
      r.stderr,
      /cost_per_1m_in and cost_per_1m_out in providers\.(fake|gw)\.models\[\]/,
    );
    const result = JSON.parse(r.stdout);
    assert.equal(result.exit_code, 2);
    assert.match(result.error, /cannot be enforced/);
  }
  assert.equal(ws.fake.requests.length, 0, "nothing was sent");

  // Without a cost limit the same model runs; a model priced at 0 is priced.
  assert.equal((await ws.run(["run", "-m", "fake/no-price", "x"])).code, 0);
  const free = await ws.run(["run", "-m", "fake/free", "--max-cost", "0.01", "x"]);
  assert.equal(free.code, 0, free.stderr);

  // $1 per 1M input tokens: any turn costs more than a ten-millionth of a dollar, and the
  // only turn is the answer, so nothing was left to stop: it still went past the limit.
  const tiny = await ws.run(["run", "-o", "json", "--max-cost", "0.0000001", "x"]);
  assert.equal(tiny.code, 4, tiny.stderr);
  const result = JSON.parse(tiny.stdout);
  assert.equal(result.subtype, "error_budget");
  assert.equal(result.num_turns, 1);
  assert.ok(result.cost_usd > 0.0000001);
  assert.match(result.error, /max cost exceeded \(\$[\d.e-]+ of \$1e-7\)/);
  assert.deepEqual(ws.fake.rejected, []);
});
