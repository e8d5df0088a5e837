/** `-c KEY=VALUE` end to end: what the model is offered, config show --sources, bad input. */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("e2e -c: settings reach the run (tools offered, max_tokens sent) and sources name -c", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  const r = await ws.run([
    "run",
    "-c",
    'agents.coder.allowed_tools=["view", "ls"]',
    "-c",
    "models.large.max_tokens=321",
    "hi",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "ok\n");
  assert.deepEqual(ws.fake.rejected, []);
  const [req] = ws.fake.turnRequests();
  const tools = (req.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  assert.deepEqual(tools.sort(), ["ls", "view"]);
  assert.equal(req.max_tokens ?? req.max_completion_tokens, 321);

  const shown = await ws.run(["config", "show", "--sources", "-c", "limits.max_turns=7"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^limits\.max_turns\t-c limits\.max_turns$/m);
});

Deno.test("e2e -c: bad settings are exit 2 naming the flag, before any model request", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  const cases: Array<[string[], RegExp]> = [
    [["-c", "limits.max_turns"], /^mopac: -c limits\.max_turns: expected KEY=VALUE/m],
    [["-c", "limits.max_turns=many"], /^mopac: -c limits\.max_turns: limits\.max_turns: /m],
    [["-c", "options.nope=1"], /^mopac: -c options\.nope: unknown key "options\.nope"/m],
    [
      ["-c", 'agents.coder.bash.deny=["x"'],
      /^mopac: -c agents\.coder\.bash\.deny: the value is not valid JSON/m,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = await ws.run(["run", ...flags, "hi"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
  const json = await ws.run(["run", "-o", "json", "-c", "limits.max_turns=many", "hi"]);
  assert.equal(json.code, 2);
  const result = JSON.parse(json.stdout);
  assert.equal(result.exit_code, 2);
  assert.match(result.error, /-c limits\.max_turns/);
  const other = await ws.run(["config", "validate", "-c", "limits.max_turns=many"]);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /-c limits\.max_turns/);
  assert.equal(ws.fake.requests.length, 0);
});
