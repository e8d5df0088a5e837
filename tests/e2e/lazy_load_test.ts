/**
 * A run loads only what it uses: the modules Deno evaluates (its debug log names each
 * one) for `--version`, for a run whose model answers at once, and for runs that use
 * bash or `--output-schema`. The shell parser (mvdan-sh, 1.5 MB of GopherJS), Ajv,
 * turndown and the MCP SDK cost tens of milliseconds each to load; the openai SDK (~100 ms)
 * is never loaded by a run: chat_post.ts sends the request.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";

const HEAVY: Record<string, string> = {
  "the shell parser": "/mvdan-sh/",
  "Ajv": "/ajv/",
  "turndown": "/turndown/",
  "the MCP SDK": "/@modelcontextprotocol/sdk/",
  "the openai SDK": "/openai/",
  "npm:diff (edit results)": "/registry.npmjs.org/diff/",
  "npm:ignore (walks)": "/registry.npmjs.org/ignore/",
};

/** The modules Deno evaluated, from a DENO_LOG=debug run's stderr. */
function loaded(stderr: string): string[] {
  return [...new Set([...stderr.matchAll(/module: (file:\/\/[^,\s]+)/g)].map((m) => m[1]))];
}

function heavyIn(modules: string[]): string[] {
  return Object.entries(HEAVY).filter(([, dir]) => modules.some((m) => m.includes(dir)))
    .map(([name]) => name);
}

const DEBUG = { env: { DENO_LOG: "debug" } };

Deno.test("e2e: --version and a run that calls no tool load none of the heavy packages", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  const version = await ws.run(["--version"], DEBUG);
  assert.equal(version.code, 0, version.stderr.slice(-2000));
  const versionModules = loaded(version.stderr);
  assert.ok(versionModules.some((m) => m.endsWith("/main.ts")), "the log names modules");
  assert.deepEqual(versionModules.filter((m) => m.includes("/npm/")), []);

  const r = await ws.run(["run", "-o", "json", "say ok"], DEBUG);
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.equal(JSON.parse(r.stdout).result, "ok");
  const modules = loaded(r.stderr);
  // The log does list npm packages: the config's schema library is among them.
  assert.ok(modules.some((m) => m.includes("/zod/")), "zod was loaded");
  assert.deepEqual(heavyIn(modules), []);
});

Deno.test("e2e: a plain bash command (src/tools/shell/plain.ts) runs without the shell parser", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("bash", { command: "echo plain" }), scriptText("done")],
  });
  const r = await ws.run(["run", "-o", "json", "run it"], DEBUG);
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.equal(JSON.parse(r.stdout).result, "done");
  assert.match(JSON.stringify(ws.fake.requests.at(-1)?.body), /plain/);
  assert.deepEqual(heavyIn(loaded(r.stderr)), []);
});

Deno.test("e2e: the shell parser loads at the first command that is not plain, Ajv with --output-schema", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("bash", { command: "true | true" }),
      scriptText('{"verdict":"pass"}'),
    ],
  });
  await Deno.writeTextFile(
    `${ws.dir}/schema.json`,
    JSON.stringify({ type: "object", required: ["verdict"] }),
  );
  const r = await ws.run(
    ["run", "-o", "json", "--output-schema", "schema.json", "check it"],
    DEBUG,
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.deepEqual(JSON.parse(r.stdout).structured_output, { verdict: "pass" });
  assert.deepEqual(heavyIn(loaded(r.stderr)), ["the shell parser", "Ajv"]);
});
