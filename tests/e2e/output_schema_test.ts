import assert from "node:assert/strict";
import { scriptText, type TurnScript } from "../_support/fake_openai.ts";
import { events, type runMopac } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

const SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] }, count: { type: "integer" } },
  required: ["verdict", "count"],
  additionalProperties: false,
};

async function withSchema(
  turns: TurnScript,
  fn: (
    ws: Awaited<ReturnType<typeof workspace>>,
    r: Awaited<ReturnType<typeof runMopac>>,
  ) => void,
) {
  await using ws = await workspace({ turns });
  await Deno.writeTextFile(`${ws.dir}/schema.json`, JSON.stringify(SCHEMA));
  const r = await ws.run([
    "run",
    "-o",
    "stream-json",
    "--output-schema",
    "schema.json",
    "count the tests",
  ]);
  fn(ws, r);
  assert.deepEqual(ws.fake.rejected, []);
}

Deno.test("e2e: --output-schema puts the schema in the prompt and the parsed answer in the result", async () => {
  await withSchema([scriptText('{"verdict":"pass","count":3}')], (ws, r) => {
    assert.equal(r.code, 0, r.stderr);
    const result = events(r.stdout).at(-1)!;
    assert.deepEqual(result.structured_output, { verdict: "pass", count: 3 });
    const system = JSON.stringify(ws.fake.turnRequests()[0].messages[0]);
    assert.match(system, /Final answer format/);
    assert.match(system, /verdict/);
  });
});

Deno.test("e2e: an invalid answer is sent back once and the corrected one is used", async () => {
  await withSchema(
    [scriptText("Three tests pass."), scriptText('```json\n{"verdict":"pass","count":3}\n```')],
    (ws, r) => {
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(events(r.stdout).at(-1)!.structured_output, { verdict: "pass", count: 3 });
      const second = JSON.stringify(ws.fake.turnRequests()[1].messages.at(-1));
      assert.match(second, /not valid against the required JSON Schema/);
    },
  );
});

Deno.test("e2e: an answer that never matches ends with exit 5", async () => {
  await withSchema(
    [scriptText('{"verdict":"maybe"}'), scriptText('{"verdict":"maybe"}'), scriptText("{}")],
    (ws, r) => {
      assert.equal(r.code, 5, r.stderr);
      const result = events(r.stdout).at(-1)!;
      assert.equal(result.subtype, "error_agent");
      assert.match(String(result.error), /does not match --output-schema/);
      assert.equal(ws.fake.turnRequests().length, 3);
    },
  );
});

Deno.test("e2e: a schema file that is not JSON is exit 2", async () => {
  await using ws = await workspace({ turns: [] });
  await Deno.writeTextFile(`${ws.dir}/schema.json`, "{ not json");
  const r = await ws.run(["run", "--output-schema", "schema.json", "x"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--output-schema schema\.json/);
  assert.equal(ws.fake.requests.length, 0);
});
