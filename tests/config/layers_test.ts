import assert from "node:assert/strict";
import { join } from "node:path";
import { makeSandbox } from "./_helpers.ts";

const turns = (n: number, extra = "") => `{ "limits": { "max_turns": ${n} }${extra} }`;

Deno.test("every layer is read, lowest first, and the highest one wins", async () => {
  const sb = await makeSandbox();
  try {
    const sub = join(sb.repo, "pkg", "app");
    const files = [
      await sb.write(sb.systemFile, turns(1)),
      await sb.write(join(sb.xdgConfig, "mopac", "mopac.json"), turns(2)),
      await sb.write(join(sb.xdgData, "mopac", "mopac.json"), turns(3)),
      // crush's own order: .crush.json wins over crush.json.
      await sb.write(join(sb.repo, "crush.json"), turns(4)),
      await sb.write(join(sb.repo, ".crush.json"), turns(5)),
      await sb.write(join(sb.repo, ".mopacrc"), turns(6)),
      await sb.write(join(sb.repo, "mopacrc"), turns(7)),
      await sb.write(join(sb.repo, ".mopac.json"), turns(8)),
      await sb.write(join(sb.repo, "mopac.json"), turns(9)),
      await sb.write(join(sb.repo, "pkg", "crush.json"), turns(10)),
      await sb.write(join(sub, "mopac.json"), turns(11)),
      await sb.write(join(sb.repo, ".mopac", "mopac.json"), turns(12)),
    ];
    const explicit = await sb.write(join(sb.root, "explicit.json"), turns(13));

    let loaded = await sb.load({ cwd: sub, configFile: explicit });
    assert.deepEqual(loaded.files, [...files, explicit]);
    assert.equal(loaded.config.limits?.max_turns, 13);
    assert.equal(loaded.sourceOf("limits.max_turns"), explicit);
    assert.equal(loaded.workspaceRoot, sb.repo);
    assert.equal(loaded.dataDir, join(sb.repo, ".mopac"));

    sb.env.MOPAC_MAX_TURNS = "14";
    loaded = await sb.load({ cwd: sub, configFile: explicit });
    assert.equal(loaded.config.limits?.max_turns, 14);
    assert.equal(loaded.sourceOf(["limits", "max_turns"]), "env MOPAC_MAX_TURNS");

    loaded = await sb.load({
      cwd: sub,
      configFile: explicit,
      flags: { limits: { max_turns: 15 } },
    });
    assert.equal(loaded.config.limits?.max_turns, 15);
    assert.equal(loaded.sourceOf("limits.max_turns"), "command line");

    // Peel the layers off from the top: each time the next one down shows through.
    delete sb.env.MOPAC_MAX_TURNS;
    for (let i = files.length - 1; i >= 0; i--) {
      loaded = await sb.load({ cwd: sub });
      assert.equal(loaded.config.limits?.max_turns, i + 1, `with ${files[i]} on top`);
      assert.equal(loaded.sourceOf("limits.max_turns"), files[i]);
      await Deno.remove(files[i]);
    }
    loaded = await sb.load({ cwd: sub });
    assert.equal(loaded.config.limits, undefined);
    assert.deepEqual(loaded.files, []);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("objects merge across layers; scalars and arrays replace", async () => {
  const sb = await makeSandbox();
  try {
    const user = await sb.write(
      join(sb.xdgConfig, "mopac", "mopac.json"),
      `{ "options": { "debug": true, "context_paths": ["A.md", "B.md"] },
         "mcp": { "gh": { "command": "gh-mcp", "args": ["--x"] } } }`,
    );
    const project = await sb.write(
      join(sb.repo, "mopac.json"),
      `{ "options": { "context_paths": ["C.md"] }, "mcp": { "gh": { "disabled": true } } }`,
    );
    const { config, sourceOf, sources } = await sb.load();
    assert.equal(config.options?.debug, true);
    assert.deepEqual(config.options?.context_paths, ["C.md"]);
    assert.equal(config.mcp?.gh.command, "gh-mcp");
    assert.equal(config.mcp?.gh.disabled, true);
    assert.equal(config.mcp?.gh.timeout, 10, "MCP timeout defaults to 10 s");
    assert.equal(sourceOf("options.debug"), user);
    assert.equal(sourceOf("options.context_paths[0]"), project);
    assert.equal(sourceOf("mcp.gh.args"), user);
    const listed = new Map(sources().map((s) => [s.path.join("."), s.source]));
    assert.equal(listed.get("mcp.gh.disabled"), project);
    assert.equal(listed.get("mcp.gh.command"), user);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("providers.<id>.models is prepended and a same-id entry overrides field by field", async () => {
  const sb = await makeSandbox();
  try {
    const user = await sb.write(
      join(sb.xdgConfig, "mopac", "mopac.json"),
      `{ "providers": { "litellm": { "base_url": "http://proxy:4000/v1", "models": [
          { "id": "a", "context_window": 1000, "cost_per_1m_in": 1 },
          { "id": "b", "context_window": 2000 } ] } } }`,
    );
    const project = await sb.write(
      join(sb.repo, "mopac.json"),
      `{ "providers": { "litellm": { "models": [
          { "id": "c", "context_window": 3000 },
          { "id": "a", "context_window": 1500 } ] } } }`,
    );
    const { config, sourceOf } = await sb.load();
    const models = config.providers?.litellm.models ?? [];
    assert.deepEqual(models.map((m) => m.id), ["c", "a", "b"]);
    assert.deepEqual(models[1], { id: "a", context_window: 1500, cost_per_1m_in: 1 });
    assert.equal(config.providers?.litellm.base_url, "http://proxy:4000/v1");
    assert.equal(sourceOf("providers.litellm.models[1].context_window"), project);
    assert.equal(sourceOf("providers.litellm.models[1].cost_per_1m_in"), user);
    assert.equal(sourceOf("providers.litellm.models[2].id"), user);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("a model named without a provider drops the provider of lower layers", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.repo, "mopac.json"),
      `{ "models": { "large": { "provider": "openai", "model": "gpt-5", "max_tokens": 900 } } }`,
    );
    sb.env.MOPAC_MODEL = "anthropic/claude-sonnet-4-5-20250929";
    const { config, sourceOf } = await sb.load();
    assert.deepEqual(config.models?.large, {
      model: "anthropic/claude-sonnet-4-5-20250929",
      max_tokens: 900,
    });
    assert.equal(sourceOf("models.large.model"), "env MOPAC_MODEL");
    assert.equal(sourceOf("models.large.provider"), undefined);

    // A flag object with an explicit `provider: undefined` means the same.
    delete sb.env.MOPAC_MODEL;
    const viaFlag = await sb.load({
      flags: { models: { large: { model: "x/y", provider: undefined } } },
    });
    assert.equal(viaFlag.config.models?.large?.provider, undefined);
    assert.equal(viaFlag.config.models?.large?.model, "x/y");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("lsp and crush-only keys are accepted; durations become seconds", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.repo, "crush.json"),
      `{ "$schema": "https://charm.land/crush.json",
         "lsp": { "go": { "command": "gopls" } },
         "options": { "tui": { "compact_mode": true }, "disable_metrics": true },
         "limits": { "timeout": "1h30m" },
         "tools": { "bash": { "timeout": "2m", "background_after": 30 } },
         "agents": { "fixer": { "timeout": 600, "allowed_mcp": { "gh": ["get_*"], "fs": true } } } }`,
    );
    const { config } = await sb.load();
    assert.equal(config.limits?.timeout, 5400);
    assert.equal(config.tools?.bash?.timeout, 120);
    assert.equal(config.tools?.bash?.background_after, 30);
    assert.equal(config.agents?.fixer.timeout, 600);
    assert.deepEqual(config.agents?.fixer.allowed_mcp, { gh: ["get_*"], fs: true });
  } finally {
    await sb.cleanup();
  }
});

Deno.test("env variables set models, agent and limits; flags sit above them", async () => {
  const sb = await makeSandbox();
  try {
    Object.assign(sb.env, {
      MOPAC_MODEL: "openai/gpt-5",
      MOPAC_SMALL_MODEL: "gpt-5-mini",
      MOPAC_AGENT: "readonly",
      MOPAC_MAX_COST: "0.5",
      MOPAC_TIMEOUT: "10m",
    });
    const { config, sourceOf } = await sb.load({
      flags: { models: { large: { model: "anthropic/claude-haiku-4-5-20251001" } } },
    });
    assert.equal(config.models?.large?.model, "anthropic/claude-haiku-4-5-20251001");
    assert.equal(config.models?.small?.model, "gpt-5-mini");
    assert.equal(config.options?.default_agent, "readonly");
    assert.equal(config.limits?.max_cost, 0.5);
    assert.equal(config.limits?.timeout, 600);
    assert.equal(sourceOf("models.large.model"), "command line");
    assert.equal(sourceOf("limits.timeout"), "env MOPAC_TIMEOUT");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("the variables that found a config file or set a value are listed (for mopac sandbox)", async () => {
  const sb = await makeSandbox();
  try {
    assert.deepEqual((await sb.load()).envUsed, []);
    await sb.write(join(sb.xdgConfig, "mopac", "mopac.json"), turns(1));
    const explicit = await sb.write(join(sb.root, "explicit.json"), turns(2));
    sb.env.MOPAC_CONFIG = explicit;
    sb.env.MOPAC_MAX_COST = "2";
    sb.env.MOPAC_DATA_DIR = join(sb.root, "data");
    sb.env.MOPAC_TRUST_PROJECT = "1";
    sb.env.XDG_DATA_HOME = join(sb.root, "no-such-dir");
    assert.deepEqual((await sb.load({ trustProject: false })).envUsed, [
      "MOPAC_CONFIG",
      "MOPAC_DATA_DIR",
      "MOPAC_MAX_COST",
      "MOPAC_TRUST_PROJECT",
      "XDG_CONFIG_HOME",
    ]);
    // Through HOME when XDG_CONFIG_HOME is not set.
    const home = await sb.load({
      env: (n) => (n === "HOME" ? sb.home : undefined),
      home: undefined,
    });
    assert.deepEqual(home.envUsed, []);
    await sb.write(join(sb.home, ".config", "mopac", "mopac.json"), turns(3));
    const viaHome = await sb.load({
      env: (n) => (n === "HOME" ? sb.home : undefined),
      home: undefined,
    });
    assert.deepEqual(viaHome.envUsed, ["HOME"]);
  } finally {
    await sb.cleanup();
  }
});
