import assert from "node:assert/strict";
import { join } from "node:path";
import { settingLayer } from "../../src/config/settings.ts";
import { ConfigError, UsageError } from "../../src/util/errors.ts";
import { makeSandbox } from "./_helpers.ts";

Deno.test("-c: dotted keys and JSON values become one nested layer named after the flag", () => {
  assert.deepEqual(settingLayer("options.request_timeout=120"), {
    name: "-c options.request_timeout",
    value: { options: { request_timeout: 120 } },
  });
  assert.deepEqual(settingLayer('agents.coder.bash.deny=["git push*"]').value, {
    agents: { coder: { bash: { deny: ["git push*"] } } },
  });
  assert.deepEqual(settingLayer('mcp.gh={"command": "gh", "args": ["mcp"],}').value, {
    mcp: { gh: { command: "gh", args: ["mcp"] } },
  });
  assert.deepEqual(settingLayer("options.debug=true").value, { options: { debug: true } });
  // Not JSON: the text as it is (an `=` in the value stays).
  assert.deepEqual(settingLayer("models.large.model=fake/m=1").value, {
    models: { large: { model: "fake/m=1" } },
  });
  assert.deepEqual(settingLayer('models.large.model="120"').value, {
    models: { large: { model: "120" } },
  });
  // A quoted key segment may hold a dot.
  assert.deepEqual(settingLayer('providers."my.gw".base_url=http://h/v1'), {
    name: '-c providers."my.gw".base_url',
    value: { providers: { "my.gw": { base_url: "http://h/v1" } } },
  });
  // Nothing is expanded: that is the shell's business.
  assert.deepEqual(settingLayer("env.A=$HOME").value, { env: { A: "$HOME" } });
});

Deno.test("-c: malformed settings are usage errors naming the flag", () => {
  const bad: Array<[string, RegExp]> = [
    ["options.request_timeout", /^-c options\.request_timeout: expected KEY=VALUE/],
    ["=1", /^-c =1: expected KEY=VALUE/],
    ["options..debug=true", /^-c options\.\.debug: the key has an empty key/],
    ["agents.coder.bash.deny[0]=x", /an array index/],
    ["__proto__.polluted=1", /the key "__proto__"/],
    ['providers."x=1', /an unclosed quote/],
    [
      'agents.coder.bash.deny=["git push*"',
      /^-c agents\.coder\.bash\.deny: the value is not valid JSON/,
    ],
    ['options.tui={"a": }', /not valid JSON/],
  ];
  for (const [text, message] of bad) {
    assert.throws(() => settingLayer(text), (err: Error) => {
      assert.ok(err instanceof UsageError, text);
      assert.match(err.message, message, text);
      return true;
    });
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("-c: layers sit above env and --config, below the other flags; sources name them", async () => {
  const sb = await makeSandbox();
  try {
    const explicit = await sb.write(join(sb.root, "ci.json"), '{ "limits": { "max_turns": 1 } }');
    sb.env.MOPAC_MAX_TURNS = "2";
    let loaded = await sb.load({
      configFile: explicit,
      settings: ["limits.max_turns=3", "limits.max_cost=0.5", "limits.max_turns=4"],
    });
    assert.equal(loaded.config.limits?.max_turns, 4);
    assert.equal(loaded.config.limits?.max_cost, 0.5);
    assert.equal(loaded.sourceOf("limits.max_turns"), "-c limits.max_turns");
    const lines = new Map(loaded.sources().map((s) => [s.path.join("."), s.source]));
    assert.equal(lines.get("limits.max_cost"), "-c limits.max_cost");

    loaded = await sb.load({
      settings: ["limits.max_turns=3"],
      flags: { limits: { max_turns: 5 } },
    });
    assert.equal(loaded.config.limits?.max_turns, 5);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("-c: the merged value is validated like a file, the error naming the flag", async () => {
  const sb = await makeSandbox();
  try {
    await assert.rejects(
      () => sb.load({ settings: ["options.request_timeout=soon"] }),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /^-c options\.request_timeout: options\.request_timeout: /);
        return true;
      },
    );
    await assert.rejects(
      () => sb.load({ settings: ["options.no_such_key=1"] }),
      /^ConfigError: -c options\.no_such_key: unknown key "options\.no_such_key"/,
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("-c: the operator's word, so it may trust the project and move the data dir", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(join(sb.repo, "mopac.json"), '{ "env": { "FROM_PROJECT": "1" } }');
    let loaded = await sb.load({ trustProject: false });
    assert.equal(loaded.project.trusted, false);
    loaded = await sb.load({
      trustProject: false,
      settings: [`trusted_projects=["${sb.repo}"]`],
    });
    assert.equal(loaded.project.trusted, true);
    assert.equal(loaded.project.by, "trusted_projects in -c trusted_projects");
    assert.equal(loaded.config.env?.FROM_PROJECT, "1");

    // Above MOPAC_DATA_DIR, below --data-dir; relative to the workspace like a file's value.
    sb.env.MOPAC_DATA_DIR = join(sb.root, "from-env");
    loaded = await sb.load({ settings: ["options.data_directory=ci-data"] });
    assert.equal(loaded.dataDir, join(sb.repo, "ci-data"));
    loaded = await sb.load({
      settings: ["options.data_directory=ci-data"],
      dataDir: join(sb.root, "flag"),
    });
    assert.equal(loaded.dataDir, join(sb.root, "flag"));
  } finally {
    await sb.cleanup();
  }
});

Deno.test("-c: an untrusted project's file cannot undo a setting", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.repo, "mopac.json"),
      '{ "agents": { "coder": { "bash": { "deny": [] } } }, "limits": { "max_turns": 9 } }',
    );
    const loaded = await sb.load({
      trustProject: false,
      settings: ['agents.coder.bash.deny=["git push*"]', "limits.max_turns=20"],
    });
    assert.deepEqual(loaded.config.agents?.coder?.bash?.deny, ["git push*"]);
    // The project's value is a cap applied later (narrowing), not a layer over -c.
    assert.equal(loaded.config.limits?.max_turns, 20);
    assert.equal(loaded.project.narrowing.limits.max_turns, 9);
  } finally {
    await sb.cleanup();
  }
});
