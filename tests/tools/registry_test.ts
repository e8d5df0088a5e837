import assert from "node:assert/strict";
import { builtinTools } from "../../src/tools/registry.ts";
import { BUILTIN_TOOL_NAMES } from "../../src/domain/tool_records.ts";

Deno.test("builtinTools: one tool per built-in name, named as listed; agent only with a runner", async () => {
  const runAgent = () => Promise.reject(new Error("not called"));
  const all = builtinTools({}, { runAgent });
  try {
    assert.deepEqual(all.tools.map((t) => t.name), [...BUILTIN_TOOL_NAMES]);
  } finally {
    await all.dispose();
  }
  const without = builtinTools();
  try {
    assert.deepEqual(
      without.tools.map((t) => t.name),
      BUILTIN_TOOL_NAMES.filter((n) => n !== "agent"),
    );
  } finally {
    await without.dispose();
  }
});
