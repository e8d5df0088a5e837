import assert from "node:assert/strict";
import { builtinTools } from "../../src/tools/registry.ts";
import { BUILTIN_TOOL_NAMES } from "../../src/domain/tool_records.ts";

Deno.test("builtinTools: one tool per built-in name, named as listed; agent only with a runner", async () => {
  const runAgent = Object.assign(() => Promise.reject(new Error("not called")), {
    tools: ["view", "grep"],
  });
  const all = builtinTools({}, { runAgent });
  try {
    assert.deepEqual(all.tools.map((t) => t.name), [...BUILTIN_TOOL_NAMES]);
    // The agent tool names the sub-agent's real tools, and what it therefore cannot do.
    const agent = all.tools.find((t) => t.name === "agent")!;
    assert.match(
      agent.description,
      /It has these tools: view and grep; it cannot change files or run commands\./,
    );
    assert.doesNotMatch(agent.description, /fetch|the web/);
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

Deno.test("builtinTools: a sub-agent with bash and edit is not said to be unable to change files", async () => {
  const runAgent = Object.assign(() => Promise.reject(new Error("not called")), {
    tools: ["view", "edit", "bash", "fetch"],
  });
  const all = builtinTools({}, { runAgent });
  try {
    const agent = all.tools.find((t) => t.name === "agent")!;
    assert.match(agent.description, /It has these tools: view, edit, bash and fetch\. It sees/);
    assert.match(agent.description, /the codebase or the web/);
    assert.doesNotMatch(agent.description, /cannot/);
  } finally {
    await all.dispose();
  }
});
