/**
 * crush configs as crush's README and docs write them: `aws_auth_refresh` and hook
 * event names in any case load; `.crush.json` wins over `crush.json` in one folder
 * (crush's order); the keys mopac accepts but does not use are listed apart.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeSandbox } from "./_helpers.ts";

Deno.test("crush's aws_auth_refresh and hook events in any case are accepted", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.repo, "crush.json"),
      `{ "providers": { "bedrock": { "type": "openai-compat", "base_url": "http://h/v1",
           "aws_auth_refresh": "aws sso login --profile dev" } },
         "hooks": {
           "pre_tool_use": [ { "matcher": "^bash$", "command": "exit 0" } ],
           "post_tool_use": [ { "command": "echo done" } ],
           "STOP": [] } }`,
    );
    const loaded = await sb.load();
    assert.deepEqual(loaded.config.hooks?.PreToolUse, [
      { matcher: "^bash$", command: "exit 0", timeout: 30 },
    ]);
    assert.equal(loaded.sourceOf("hooks.PreToolUse.0.command"), join(sb.repo, "crush.json"));
    assert.deepEqual(loaded.unusedKeys().map((i) => i.path.join(".")), [
      "providers.bedrock.aws_auth_refresh",
      "hooks.PostToolUse",
      "hooks.Stop",
    ]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test(".crush.json wins over crush.json in the same folder, as in crush", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(join(sb.repo, "crush.json"), `{ "limits": { "max_turns": 1 } }`);
    const dotted = await sb.write(join(sb.repo, ".crush.json"), `{ "limits": { "max_turns": 2 } }`);
    const loaded = await sb.load();
    assert.equal(loaded.config.limits?.max_turns, 2);
    assert.equal(loaded.sourceOf("limits.max_turns"), dotted);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("the ignored keys are crush's TUI, LSP and service keys, each named once with its file", async () => {
  const sb = await makeSandbox();
  try {
    const file = await sb.write(
      join(sb.repo, ".crush.json"),
      `{ "lsp": { "go": { "command": "gopls", "args": ["serve"] } },
         "options": { "tui": { "compact_mode": true }, "debug_lsp": true, "debug": true },
         "mcp": { "m": { "command": "x", "sessionless": true } } }`,
    );
    const loaded = await sb.load();
    const listed = loaded.unusedKeys().map((i) => `${i.path.join(".")} ${i.source}`).sort();
    assert.deepEqual(listed, [
      `lsp ${file}`,
      `mcp.m.sessionless ${file}`,
      `options.debug_lsp ${file}`,
      `options.tui ${file}`,
    ]);
    assert.ok(!loaded.unusedKeys().some((i) => i.path.join(".") === "options.debug"));
  } finally {
    await sb.cleanup();
  }
});
