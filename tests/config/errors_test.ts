import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError, SandboxError } from "../../src/util/errors.ts";
import { makeSandbox, posOf } from "./_helpers.ts";
import { DENO_RUN } from "../_support/deps.ts";

async function loadError(load: () => Promise<unknown>): Promise<Error> {
  const err = await load().then(() => undefined, (e) => e);
  assert.ok(err instanceof Error, "expected the load to fail");
  return err;
}

Deno.test("a wrong type deep in a nested key names file:line:col of the value", async () => {
  const sb = await makeSandbox();
  try {
    const text = `// team config
{
  "providers": {
    "litellm": {
      "models": [
        { "id": "ok", "context_window": 8000 },
        { "id": "bad", "context_window": "lots" },
      ],
    },
  },
}
`;
    const file = await sb.write(join(sb.repo, "mopac.json"), text);
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:${posOf(text, '"lots"')}`);
    assert.match(
      err.message,
      /providers\.litellm\.models\[1\]\.context_window: expected number, received string/,
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("the location survives the models merge: the index in the file is used", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.xdgConfig, "mopac", "mopac.json"),
      `{ "providers": { "x": { "base_url": "http://h/v1", "models": [ { "id": "a" } ] } } }`,
    );
    const text = `{ "providers": { "x": { "models": [
      { "id": "b" },
      { "id": "c", "can_reason": "yes" }
    ] } } }`;
    const file = await sb.write(join(sb.repo, "mopac.json"), text);
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:${posOf(text, '"yes"')}`);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("a JSON syntax error names file:line:col", async () => {
  const sb = await makeSandbox();
  try {
    const text = `{
  "options": {
    "debug": true
    "data_directory": "x"
  }
}`;
    const file = await sb.write(join(sb.repo, ".mopacrc"), text);
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:${posOf(text, '"data_directory"')}`);
    assert.match(err.message, /invalid JSON: ',' expected/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("an unknown key is an error at the key, with its path", async () => {
  const sb = await makeSandbox();
  try {
    const text = `{
  "mcp": {
    "gh": { "command": "gh-mcp", "timeuot": 5 }
  }
}`;
    const file = await sb.write(join(sb.repo, "crush.json"), text);
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:${posOf(text, '"timeuot"')}`);
    assert.match(err.message, /unknown key "mcp\.gh\.timeuot"/);
    assert.match(err.hint ?? "", /mopac schema/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("several problems: the first is located, the rest are listed", async () => {
  const sb = await makeSandbox();
  try {
    const text = `{ "limits": { "max_turns": 0, "max_cost": -1 }, "nope": 1 }`;
    const file = await sb.write(join(sb.repo, "mopac.json"), text);
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:${posOf(text, "0,")}`);
    assert.match(err.message, /2 more problems/);
    assert.ok(err.message.includes(`${file}:${posOf(text, '"nope"')}: unknown key "nope"`));
  } finally {
    await sb.cleanup();
  }
});

Deno.test("values from env and flags are checked too and named by their source", async () => {
  const sb = await makeSandbox();
  try {
    sb.env.MOPAC_MAX_TURNS = "many";
    let err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, "env MOPAC_MAX_TURNS");
    delete sb.env.MOPAC_MAX_TURNS;
    err = await loadError(() => sb.load({ flags: { limits: { timeout: "soon" } } }));
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, "command line");
    assert.match(err.message, /invalid duration "soon"/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("MCP servers, hooks and provider types are checked like crush would", async () => {
  const sb = await makeSandbox();
  try {
    const cases: [string, RegExp][] = [
      [`{ "mcp": { "r": { "type": "http" } } }`, /mcp\.r\.url: a http server needs a url/],
      [`{ "mcp": { "s": { "type": "stdio", "url": "http://x" } } }`, /mcp\.s\.command: a stdio/],
      [
        `{ "hooks": { "PreToolUse": [ { "matcher": "(", "command": "x" } ] } }`,
        /not a valid regex/,
      ],
      [`{ "hooks": { "OnFire": [] } }`, /unknown key "hooks\.OnFire"/],
      [
        `{ "hooks": { "pre_tool_use": [ { "matcher": "(", "command": "x" } ] } }`,
        /mopac\.json:1:\d+: hooks\.PreToolUse\[0\]\.matcher: matcher is not a valid regex/,
      ],
      [`{ "providers": { "a": { "type": "anthropic" } } }`, /OpenAI-compatible/],
      [`{ "providers": { "a": { "base_url": "ftp://x" } } }`, /providers\.a\.base_url/],
      [
        `{ "agents": { "a": { "prompt": "x", "prompt_file": "y" } } }`,
        /either prompt or prompt_file/,
      ],
      [`{ "agents": { "a": { "allowed_mcp": { "gh": "all" } } } }`, /agents\.a\.allowed_mcp\.gh/],
    ];
    for (const [text, pattern] of cases) {
      await sb.write(join(sb.repo, "mopac.json"), text);
      const err = await loadError(() => sb.load());
      assert.ok(err instanceof ConfigError, text);
      assert.match(err.message, pattern, text);
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("a missing --config file is an error; missing layer files are not", async () => {
  const sb = await makeSandbox();
  try {
    const loaded = await sb.load();
    assert.deepEqual(loaded.files, []);
    const err = await loadError(() => sb.load({ configFile: "nowhere.json" }));
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /nowhere\.json given by --config does not exist/);
    sb.env.MOPAC_CONFIG = join(sb.root, "also-missing.json");
    const err2 = await loadError(() => sb.load());
    assert.match(err2.message, /given by MOPAC_CONFIG does not exist/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("empty and comment-only files are empty configs; a non-object root is an error", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(join(sb.repo, ".mopacrc"), "  // nothing yet\n");
    await sb.write(join(sb.repo, "mopacrc"), "");
    assert.equal((await sb.load()).files.length, 2);
    const file = await sb.write(join(sb.repo, "mopac.json"), "\n  [1, 2]");
    const err = await loadError(() => sb.load());
    assert.ok(err instanceof ConfigError);
    assert.equal(err.where, `${file}:2:3`);
  } finally {
    await sb.cleanup();
  }
});

Deno.test({
  name: "under Deno's sandbox: HOME and XDG that cannot be read count as unset",
  permissions: { read: true, write: true, run: ["git"], env: ["MOPAC_*"] },
  async fn() {
    const sb = await makeSandbox();
    try {
      await sb.write(join(sb.repo, "mopac.json"), `{ "limits": { "max_turns": 3 } }`);
      const env = (name: string) => Deno.env.get(name);
      assert.throws(() => env("HOME"), Deno.errors.NotCapable);
      const loaded = await sb.load({ env, home: undefined });
      assert.equal(loaded.config.limits?.max_turns, 3);
      assert.equal(loaded.dataDir, join(sb.repo, ".mopac"));
      assert.deepEqual(loaded.files, [join(sb.repo, "mopac.json")]);
    } finally {
      await sb.cleanup();
    }
  },
});

Deno.test({
  name: "under Deno's sandbox: MOPAC_* that cannot be read is a SandboxError naming the flag",
  permissions: { read: true, write: true, run: ["git"], env: false },
  async fn() {
    const sb = await makeSandbox();
    try {
      const env = (name: string) => Deno.env.get(name);
      await assert.rejects(() => sb.load({ env, home: undefined }), (err: Error) => {
        assert.ok(err instanceof SandboxError, String(err));
        assert.equal(err.flag, "--allow-env=MOPAC_*");
        assert.match(err.message, /environment variable MOPAC_[A-Z_]+/);
        return true;
      });
    } finally {
      await sb.cleanup();
    }
  },
});

Deno.test("under narrow flags: unreadable optional files are skipped; --config and $VAR name the flag", async () => {
  const sb = await makeSandbox();
  try {
    const secret = await sb.write(join(sb.root, "secret", "mopac.json"), "{}");
    await sb.write(sb.systemFile, `{ "nope": true }`); // would fail validation if it were read
    const mod = JSON.stringify(new URL("../../src/config/mod.ts", import.meta.url).href);
    const script = `
      import { loadConfig } from ${mod};
      const base = { cwd: ${JSON.stringify(sb.repo)}, home: ${JSON.stringify(sb.home)},
        systemFile: ${JSON.stringify(sb.systemFile)}, env: (n) => Deno.env.get(n),
        trustProject: true };
      const show = (e) => console.log(e.name, e.flag ?? "", e.message.split("\\n")[0]);
      try { await loadConfig({ ...base, configFile: ${
      JSON.stringify(secret)
    } }); console.log("loaded"); }
      catch (e) { show(e); }
      await Deno.writeTextFile(${JSON.stringify(join(sb.repo, "mopac.json"))},
        '{ "providers": { "openai": { "api_key": "$SECRET_TOKEN" } } }');
      try { await loadConfig(base); console.log("loaded"); } catch (e) { show(e); }`;
    const scriptFile = await sb.write(join(sb.repo, "probe.ts"), script);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        ...DENO_RUN,
        `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
        `--allow-read=${sb.repo},${sb.home}`,
        `--allow-write=${sb.repo}`,
        "--allow-env=MOPAC_*",
        scriptFile,
      ],
      env: { NO_COLOR: "1" },
    }).output();
    const lines = (new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr))
      .trim().split("\n");
    assert.match(
      lines[0],
      new RegExp(`^SandboxError --allow-read=${secret} cannot read config file`),
    );
    assert.match(
      lines[1],
      /^SandboxError --allow-env=SECRET_TOKEN .*mopac\.json:1:41: providers\.openai\.api_key reads \$SECRET_TOKEN/,
    );
  } finally {
    await sb.cleanup();
  }
});
