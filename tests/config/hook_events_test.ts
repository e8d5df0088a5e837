/**
 * crush writes hook event names in any case (`PreToolUse`, `pretooluse`,
 * `pre_tool_use`, `PRE_TOOL_USE`); each is read as PreToolUse, a later layer's
 * spelling replaces an earlier layer's, and crush's other events load and are ignored.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeSandbox } from "./_helpers.ts";

Deno.test("hook events in crush's spellings are PreToolUse; other events are ignored", async () => {
  for (const key of ["PreToolUse", "pretooluse", "pre_tool_use", "PRE_TOOL_USE", "pre-tool-use"]) {
    const sb = await makeSandbox();
    try {
      await sb.write(
        join(sb.repo, "crush.json"),
        JSON.stringify({
          hooks: { [key]: [{ matcher: "^bash$", command: "exit 0" }], post_tool_use: [] },
        }),
      );
      const loaded = await sb.load();
      assert.deepEqual(
        loaded.config.hooks?.PreToolUse,
        [{ matcher: "^bash$", command: "exit 0", timeout: 30 }],
        key,
      );
    } finally {
      await sb.cleanup();
    }
  }
});

Deno.test("a later layer's spelling replaces an earlier one's", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(
      join(sb.xdgConfig, "mopac", "mopac.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ command: "echo user" }] } }),
    );
    const project = await sb.write(
      join(sb.repo, "mopac.json"),
      JSON.stringify({ hooks: { pre_tool_use: [{ command: "echo project" }] } }),
    );
    const loaded = await sb.load();
    assert.deepEqual(loaded.config.hooks?.PreToolUse?.map((h) => h.command), ["echo project"]);
    assert.equal(loaded.sourceOf("hooks.PreToolUse.0.command"), project);
  } finally {
    await sb.cleanup();
  }
});
