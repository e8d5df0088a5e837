import assert from "node:assert/strict";
import { runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";

async function inWorkspace(fn: (ws: Awaited<ReturnType<typeof workspace>>) => Promise<void>) {
  await using ws = await workspace({ turns: [] });
  await fn(ws);
  // None of these may reach the model.
  assert.equal(ws.fake.requests.length, 0);
}

function assertUsage(r: { code: number; stdout: string; stderr: string }, pattern: RegExp) {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at .*\.ts:\d+/, "no stack trace");
}

Deno.test("e2e: a missing prompt is exit 2 with a hint", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run"]);
    assertUsage(r, /no prompt given\nhint: /);
    assert.equal(r.stdout, "");
  });
});

Deno.test("e2e: an unknown flag is exit 2 with a hint", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "--frobnicate", "x"]);
    assertUsage(r, /Unknown option '--frobnicate'\nhint: run 'mopac run --help'/);
  });
});

Deno.test("e2e: a config error names file, line and column", async () => {
  await inWorkspace(async (ws) => {
    await Deno.writeTextFile(
      `${ws.dir}/.mopac.json`,
      `{\n  // tools settings\n  "tools": {\n    "ls": { "max_depth": "deep" }\n  }\n}\n`,
    );
    const r = await ws.run(["run", "hi"]);
    assertUsage(r, new RegExp(`${ws.dir}/\\.mopac\\.json:4:26`));
    assert.match(r.stderr, /max_depth/);
  });
});

Deno.test("e2e: a JSON syntax error names file, line and column", async () => {
  await inWorkspace(async (ws) => {
    await Deno.writeTextFile(
      `${ws.dir}/.mopac.json`,
      `{\n  "options": {\n    "debug": tru\n  }\n}\n`,
    );
    const r = await ws.run(["run", "hi"]);
    assertUsage(r, new RegExp(`${ws.dir}/\\.mopac\\.json:3:\\d+`));
  });
});

Deno.test("e2e: an ambiguous bare model id lists the candidates", async () => {
  await inWorkspace(async (ws) => {
    const model = { id: "shared-model", name: "S", context_window: 1000, default_max_tokens: 100 };
    await Deno.writeTextFile(
      `${ws.dir}/.mopac.json`,
      JSON.stringify({
        providers: {
          one: {
            type: "openai-compat",
            base_url: "http://127.0.0.1:9/v1",
            api_key: "k1",
            models: [model],
          },
          two: {
            type: "openai-compat",
            base_url: "http://127.0.0.1:9/v1",
            api_key: "k2",
            models: [model],
          },
        },
      }),
    );
    const r = await ws.run(["run", "-m", "shared-model", "hi"]);
    assertUsage(r, /ambiguous/i);
    assert.match(r.stderr, /one\/shared-model/);
    assert.match(r.stderr, /two\/shared-model/);
  });
});

Deno.test("e2e: an unknown provider is exit 2", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "-m", "nosuch/model", "hi"]);
    assertUsage(r, /nosuch/);
  });
});

Deno.test("e2e: json output still gets a result object on a usage error", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "-o", "json"]);
    assert.equal(r.code, 2);
    const result = JSON.parse(r.stdout);
    assert.equal(result.type, "result");
    assert.equal(result.exit_code, 2);
    assert.equal(result.is_error, true);
  });
});

Deno.test("e2e: --version and --help need no permissions at all", async () => {
  for (const args of [["--version"], ["--help"], ["run", "--help"]]) {
    const r = await runMopac(args, { cwd: Deno.cwd(), perms: {} });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /mopac/);
  }
});

Deno.test("e2e: --dry-run resolves and prints the run, calls no model and writes nothing", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.equal(plan.model, "fake/fake-model");
    assert.equal(plan.agent, "coder");
    assert.ok(plan.tools.includes("bash"));
    assert.ok(Array.isArray(plan.permissions));
    const stored = [...Deno.readDirSync(ws.dir)].map((e) => e.name);
    assert.ok(!stored.includes(".mopac"), `nothing written: ${stored}`);
  });
});

Deno.test("e2e: --replay of a missing cassette is exit 2 before anything starts", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "--replay", "nope.jsonl", "hi"]);
    assertUsage(r, /--replay .*nope\.jsonl: no such file/);
  });
});

Deno.test("e2e: config show never prints a key; --cwd without a value is exit 2", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["config", "show"]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes(FAKE_ENV.FAKE_API_KEY), "the expanded key is redacted");
    assert.match(r.stdout, /"api_key": "\[REDACTED\]"/);
    const bad = await ws.run(["config", "show", "--cwd"]);
    assertUsage(bad, /--cwd needs a value/);
  });
});

Deno.test("e2e: a negative number as a flag value is one line with a hint", async () => {
  await inWorkspace(async (ws) => {
    const r = await ws.run(["run", "--max-turns", "-1", "hi"]);
    assertUsage(
      r,
      /^mopac: Option '--max-turns' argument is ambiguous\nhint: .*--max-turns=VALUE\n$/,
    );
  });
});
