/**
 * Mistakes get a guess and a clear word, before anything starts: "did you mean" for a
 * command, a subcommand, a flag, a config key and a model id (a provider that lists its
 * models refuses another id at preflight, exit 2, before any request); a refused
 * connection says so and names the URL once; an api_key naming an unset variable names
 * the variable.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

async function refused(ws: Workspace, args: string[], pattern: RegExp, hint: RegExp) {
  const r = await ws.run(args);
  assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
  assert.match(r.stderr, pattern, args.join(" "));
  assert.match(r.stderr, hint, args.join(" "));
  assert.doesNotMatch(r.stderr, /internal error/);
}

Deno.test("mistakes: did you mean a command, a subcommand, a flag", async () => {
  await using ws = await workspace({ turns: [] });
  await refused(ws, ["rn", "hi"], /unknown command 'rn'/, /hint: did you mean 'mopac run'\?/);
  await refused(ws, ["sesions", "list"], /unknown command/, /did you mean 'mopac sessions'\?/);
  await refused(ws, ["sessions", "lst"], /unknown command "lst"/, /did you mean 'list'\?/);
  await refused(ws, ["config", "shwo"], /unknown config command/, /did you mean 'show'\?/);
  await refused(ws, ["mcp", "lsit"], /unknown mcp command/, /did you mean 'list'\?/);
  await refused(ws, ["run", "--modle", "x", "hi"], /Unknown option '--modle'/, /'--model'/);
  await refused(ws, ["run", "-M", "x", "hi"], /Unknown option '-M'/, /'-m' \(--model\)/);
  await refused(ws, ["models", "--jsn"], /Unknown option '--jsn'/, /'--json'/);
  await refused(ws, ["sessions", "list", "--limt", "3"], /'--limt'/, /'--limit'/);
  assert.equal(ws.fake.requests.length, 0);
});

Deno.test("mistakes: did you mean a config key, at any depth", async () => {
  await using ws = await workspace({ turns: [] }, {
    optoins: { debug: true },
    mcp: { fx: { command: "true", enviroment: {} } },
  });
  const r = await ws.run(["config", "validate"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /mopac.json:\d+:\d+: unknown key "optoins" \(did you mean "options"\?\)/);
  assert.match(r.stderr, /unknown key "mcp\.fx\.enviroment" \(did you mean "env"\?\)/);
});

Deno.test("mistakes: a model id the provider does not list is exit 2 at preflight with the closest", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  for (
    const [model, guess] of [["fake/fake-modle", "fake/fake-model"], [
      "fake-mdel",
      "fake/fake-model",
    ]]
  ) {
    const r = await ws.run(["run", "-o", "json", "-m", model, "hi"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`did you mean "${guess}"\\?`), model);
  }
  const listed = await ws.run(["run", "-m", "fake/gpt-9", "hi"]);
  assert.equal(listed.code, 2);
  assert.match(listed.stderr, /provider "fake" has no model "gpt-9"; it lists fake-model/);
  await refused(ws, ["run", "-m", "fak/fake-model", "hi"], /unknown provider "fak"/, /"fake"/);
  assert.equal(ws.fake.requests.length, 0, "refused before any request");
});

Deno.test("mistakes: a refused connection says so and names the URL once", async () => {
  // A port that was free a moment ago: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const url = `http://127.0.0.1:${port}/v1`;
  await using ws = await workspace({ turns: [] }, {
    providers: {
      fake: {
        type: "openai-compat",
        base_url: url,
        api_key: "$FAKE_API_KEY",
        models: [{ id: "fake-model" }],
      },
    },
  });
  ws.perms.net!.push(`127.0.0.1:${port}`);
  const r = await ws.run(["run", "-q", "hi"]);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /connection refused/);
  assert.equal(r.stderr.split(url).length - 1, 1, `the URL once:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /fetch failed|Connection error\./);
});

Deno.test("mistakes: an api_key of an unset variable names the variable", async () => {
  await using ws = await workspace({ turns: [] });
  const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
  config.providers.fake.api_key = "${CORP_LLM_KEY}";
  await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
  ws.perms.env = [...ws.perms.env as string[], "CORP_LLM_KEY"];
  const r = await ws.run(["run", "hi"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /no API key for provider "fake": providers\.fake\.api_key is \$CORP_LLM_KEY, which is not set/,
  );
  assert.match(r.stderr, /hint: set CORP_LLM_KEY in the environment/);
});
