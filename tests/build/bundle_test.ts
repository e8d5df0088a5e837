/**
 * `deno task build` (a bundle split into chunks: tests/_support/bundle.ts runs the
 * task's own command) is the nearest check to a compiled binary that these machines
 * allow, and the fastest way to start mopac under `deno run`. It must replay the demo
 * session from a folder with no deno.json, no lock and no node_modules, under narrow
 * permissions; and it must keep loading each heavy package at first use: the chunk
 * that holds a package is not read by a run that does not use it.
 */
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { JAIL_ENV, JAIL_ENV_VARS } from "../_support/jail.ts";
import { buildBundle, chunks, chunksWith } from "../_support/bundle.ts";
import { REPO } from "../_support/run_mopac.ts";
import { scriptFault, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";

// One build for the file: the bundler takes seconds.
const BUILD = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-build-" }));
const MAIN_JS = await buildBundle(BUILD, { sourceMaps: true });
globalThis.addEventListener("unload", () => Deno.removeSync(BUILD, { recursive: true }));

Deno.test("the build writes an entry and chunks that name no npm: or file: import", async () => {
  const all = await chunks(BUILD);
  assert.ok(all.some((c) => c.path === MAIN_JS));
  assert.ok(all.length > 2, "the lazy parts are chunks of their own");
  for (const c of all) {
    // Everything from npm is inside the bundle; only Deno's node: built-ins stay imports.
    assert.doesNotMatch(c.text, /\bfrom\s+["'](npm:|file:|jsr:)/, c.path);
    assert.doesNotMatch(c.text, /\bimport\(\s*["'](npm:|file:|jsr:)/, c.path);
    // Loading node:module costs every start ~20 ms; the build's last step takes it out
    // (src/build/strip_require.ts).
    assert.doesNotMatch(c.text, /["']node:module["']/, c.path);
  }
});

Deno.test("the build leaves out zod's locales other than English", async () => {
  // Only `import * as z from "zod"` lets the bundler drop what a run never uses;
  // `import { z }` keeps all sixty locales (~370 KB) in the chunk every run loads.
  const locales = (await chunks(BUILD)).flatMap((c) => c.sources)
    .map((s) => s.match(/registry\.npmjs\.org\/zod\/[^/]+\/v4\/locales\/([\w-]+)\.js$/)?.[1])
    .filter((l) => l !== undefined);
  assert.deepEqual(locales, ["en"]);
});

Deno.test("a built mopac runs the demo session standalone", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-bundle-" }));
  try {
    await cp(BUILD, `${dir}/mopac`, { recursive: true });
    await cp(`${REPO}/tests/demo/sample`, `${dir}/work`, { recursive: true });
    await Deno.copyFile(`${REPO}/tests/demo/session.cassette.jsonl`, `${dir}/session.jsonl`);
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--no-prompt",
        `--allow-read=${dir}`,
        `--allow-write=${dir}/work`,
        "--allow-run=bash,bwrap",
        `--allow-env=${["HOME", "PATH", "NO_COLOR", "DEMO_BASE_URL", "MOPAC_*", ...JAIL_ENV_VARS]}`,
        `${dir}/mopac/main.js`,
        "run",
        // The sample's mopac.json is ours, as in the demo.
        "--trust-project",
        "--replay",
        `${dir}/session.jsonl`,
        "fix the greeting",
      ],
      cwd: `${dir}/work`,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: dir,
        NO_COLOR: "1",
        ...JAIL_ENV,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    assert.match(new TextDecoder().decode(run.stdout), /Fixed the misspelled greeting/);
    assert.match(await Deno.readTextFile(`${dir}/work/src/greet.ts`), /Hello, /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The files Deno evaluated, from a DENO_LOG=debug run's stderr. */
function loaded(stderr: string): Set<string> {
  return new Set([...stderr.matchAll(/module: file:\/\/([^,\s]+)/g)].map((m) => m[1]));
}

Deno.test("the built mopac reads the shell parser's chunk at the first bash command that is not plain only", async () => {
  // The chunk's source map names the modules in it: the package's folder names it.
  const parser = await chunksWith(BUILD, "/registry.npmjs.org/mvdan-sh/");
  assert.equal(parser.length, 1, "the shell parser is one chunk");
  const others = await Promise.all(
    ["ajv", "turndown", "@modelcontextprotocol/sdk", "diff", "ignore"].map((p) =>
      chunksWith(BUILD, `/registry.npmjs.org/${p}/`)
    ),
  );
  const heavy = [...parser, ...others.flat()];
  assert.ok(others.every((c) => c.length > 0), "each heavy package is in some chunk");
  const debug = { main: MAIN_JS, env: { DENO_LOG: "debug" } };

  {
    await using ws = await workspace({ turns: [scriptText("ok")] });
    const r = await ws.run(["run", "-o", "json", "say ok"], debug);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.equal(JSON.parse(r.stdout).result, "ok");
    const files = loaded(r.stderr);
    assert.ok(files.has(MAIN_JS), "the log names the files");
    assert.deepEqual(heavy.filter((c) => files.has(c)), []);
  }
  for (const [command, reads] of [["echo built", false], ["echo 'built'", true]] as const) {
    await using ws = await workspace({
      turns: [scriptToolCall("bash", { command }), scriptText("done")],
    });
    const r = await ws.run(["run", "-o", "json", "run it"], debug);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.equal(JSON.parse(r.stdout).result, "done");
    assert.match(JSON.stringify(ws.fake.requests.at(-1)?.body), /built/);
    // A plain command (src/tools/shell/plain.ts) needs no parser; a quoted word does.
    assert.equal(loaded(r.stderr).has(parser[0]), reads, command);
  }
});

Deno.test("the minified build still names its errors: a session records ProviderError, not a renamed class", async () => {
  // The build renames classes; an error's name is spelled out (src/util/errors.ts) and
  // is what the session keeps for a turn the provider ended.
  await using ws = await workspace({ turns: [scriptFault({ status: 401 })] });
  const r = await ws.run(["run", "-o", "json", "hi"], { main: MAIN_JS });
  assert.equal(r.code, 5, r.stderr);
  const id = JSON.parse(r.stdout).session_id;
  const exported = await ws.run(["sessions", "export", id], { main: MAIN_JS });
  assert.equal(exported.code, 0, exported.stderr);
  const finish = exported.stdout.trim().split("\n").map((l) => JSON.parse(l))
    .flatMap((l) => l.message?.parts ?? []).find((p) => p.type === "finish");
  assert.match(finish?.message ?? "", /^ProviderError: fake\/fake-model: .*HTTP 401/);
});
