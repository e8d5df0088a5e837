import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../src/util/errors.ts";
import { makeSandbox, posOf } from "./_helpers.ts";

Deno.test("$VAR, ${VAR}, ${VAR:-default}, $$ and $(cmd) expand in string values", async () => {
  const sb = await makeSandbox();
  try {
    sb.env.TOKEN = "s3cret";
    sb.env.HOST = "proxy.internal";
    const file = await sb.write(
      join(sb.repo, "mopac.json"),
      `{
        "providers": { "litellm": {
          "base_url": "http://\${HOST}:4000/v1",
          "api_key": "$TOKEN",
          "extra_headers": { "X-Who": "$(printf '%s' \\"$(echo nested)\\")", "X-Price": "$$5 and $ alone" }
        } },
        "mcp": { "gh": { "command": "gh-mcp", "env": { "PORT": "\${PORT:-8080}", "NEST": "\${NOPE:-\${HOST}:\${NOPE2:-1}}", "GONE": "$UNSET_VAR" } } },
        "env": { "FROM_CMD": "$(pwd)" },
        "hooks": { "PreToolUse": [ { "command": "echo $TOOL_NAME $(cat)" } ] },
        "agents": { "fixer": { "prompt": "Run $(git diff) yourself", "bash": { "allow": ["echo $HOME"] } } }
      }`,
    );
    const loaded = await sb.load();
    const { config } = loaded;
    assert.equal(config.providers?.litellm.base_url, "http://proxy.internal:4000/v1");
    assert.equal(config.providers?.litellm.api_key, "s3cret");
    assert.equal(config.providers?.litellm.extra_headers?.["X-Who"], "nested");
    assert.equal(config.providers?.litellm.extra_headers?.["X-Price"], "$5 and $ alone");
    assert.equal(config.mcp?.gh.env?.PORT, "8080");
    assert.equal(config.mcp?.gh.env?.NEST, "proxy.internal:1");
    assert.equal(config.mcp?.gh.env?.GONE, "", "an unset variable expands to nothing");
    assert.equal(config.env?.FROM_CMD, sb.repo, "$(cmd) runs in the config file's folder");
    assert.equal(config.hooks?.PreToolUse?.[0].command, "echo $TOOL_NAME $(cat)");
    assert.equal(config.agents?.fixer.prompt, "Run $(git diff) yourself");
    assert.deepEqual(config.agents?.fixer.bash?.allow, ["echo $HOME"]);
    assert.deepEqual(loaded.referencedEnv, ["HOST", "NOPE", "NOPE2", "PORT", "TOKEN", "UNSET_VAR"]);
    const expanded = loaded.expandedPaths.map((p) => p.join("."));
    assert.ok(expanded.includes("providers.litellm.api_key"));
    assert.ok(!expanded.includes("hooks.PreToolUse.0.command"));
    assert.equal(loaded.sourceOf("providers.litellm.api_key"), file);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("a failing $(cmd) is a ConfigError naming the key and its file:line:col", async () => {
  const sb = await makeSandbox();
  try {
    const text = `{
  "providers": {
    "openai": { "api_key": "$(echo nope >&2; exit 3)" }
  }
}`;
    const file = await sb.write(join(sb.repo, ".mopac.json"), text);
    const err = await sb.load().then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.where, `${file}:${posOf(text, '"$(echo')}`);
    assert.match(
      err.message,
      /providers\.openai\.api_key: \$\(echo nope >&2; exit 3\) failed with exit code 3: nope/,
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("a $(cmd) that outlives its time limit is stopped and reported", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(join(sb.repo, "mopac.json"), `{ "env": { "SLOW": "$(sleep 5; echo late)" } }`);
    const started = Date.now();
    const err = await sb.load({ commandTimeoutMs: 200 }).then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, /env\.SLOW: \$\(sleep 5; echo late\) did not finish within 0.2 s/);
    assert.ok(Date.now() - started < 4000, "the command was killed, not waited for");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("malformed expansions are errors at the value", async () => {
  const sb = await makeSandbox();
  try {
    for (const bad of ["${OPEN", "$(echo", "${A:?x}"]) {
      const text = `{ "env": { "X": ${JSON.stringify(bad)} } }`;
      const file = await sb.write(join(sb.repo, "mopac.json"), text);
      const err = await sb.load().then(() => undefined, (e) => e);
      assert.ok(err instanceof ConfigError, `${bad}: ${err}`);
      assert.equal(err.where, `${file}:1:17`, bad);
      assert.match(err.message, /^.*env\.X: /, bad);
    }
  } finally {
    await sb.cleanup();
  }
});
