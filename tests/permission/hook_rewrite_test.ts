/**
 * A hook's `updated_input` through the real tool runner, gate and bash tool: the
 * rewritten input runs after passing the rules again, or nothing runs; the original
 * never runs in its place. `context` reaches the model after the output.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import { createBashTool } from "../../src/tools/bash.ts";
import { createToolRunner } from "../../src/agent/tool_runner.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import { testToolContext } from "../_support/tool_context.ts";

async function runner(hookStdout: Record<string, unknown>) {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_rewrite_" }));
  const jobs = new JobManager();
  const gate = createGate({
    profile: resolveProfile("r", {
      agents: { r: { allowed_tools: ["bash"], bash: { deny: ["rm"] } } },
    }),
    workspace: ws,
    hooks: [{ command: `cat > /dev/null; echo '${JSON.stringify(hookStdout)}'` }],
  });
  const { signal: _s, ...context } = testToolContext(ws);
  const r = createToolRunner({
    tools: () => [createBashTool({ jobs })],
    gate,
    context,
    summarize: (i) => JSON.stringify(i),
  });
  const call = (command: string) =>
    r.run(
      { type: "tool_call", id: "c1", name: "bash", input: JSON.stringify({ command }) },
      new AbortController().signal,
    );
  return {
    ws,
    call,
    async [Symbol.asyncDispose]() {
      await jobs.dispose();
      await Deno.remove(ws, { recursive: true });
    },
  };
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("the rewritten input runs, with the hook's context after the output", async () => {
  await using r = await runner({
    updated_input: { command: "touch rewritten && echo rewritten" },
    context: "ran the rewrite",
  });
  const ran = await r.call("touch original && echo original");
  assert.equal(ran.result.content, "rewritten\n\nran the rewrite");
  assert.equal(await exists(join(r.ws, "rewritten")), true);
  assert.equal(await exists(join(r.ws, "original")), false);
});

Deno.test("a rewrite the rules refuse is a denial; the original does not run", async () => {
  for (
    const patch of [
      { command: "rm -rf original" },
      { command: "curl http://127.0.0.1:9/" },
      { command: "echo x > $F" },
      { command: 5 },
      { command: "" },
    ]
  ) {
    await using r = await runner({ updated_input: patch });
    const ran = await r.call("touch original");
    assert.equal(ran.result.denied, true, JSON.stringify(patch));
    assert.ok(ran.denial, "recorded as a denial");
    assert.match(ran.result.content, /the input a hook rewrote/);
    assert.equal(await exists(join(r.ws, "original")), false, "the original never runs");
  }
});

Deno.test("a halting hook's denial carries the halt", async () => {
  await using r = await runner({ halt: true, reason: "security freeze" });
  const ran = await r.call("touch original");
  assert.equal(ran.halt, "security freeze");
  assert.equal(ran.result.denied, true);
  assert.equal(await exists(join(r.ws, "original")), false);
});

Deno.test("a rewrite written as a string: run when it holds an object, else nothing runs", async () => {
  {
    await using r = await runner({ updated_input: JSON.stringify({ command: "touch rewritten" }) });
    const ran = await r.call("touch original");
    assert.equal(ran.result.is_error, false, ran.result.content);
    assert.equal(await exists(join(r.ws, "rewritten")), true);
    assert.equal(await exists(join(r.ws, "original")), false);
  }
  await using r = await runner({ updated_input: "touch rewritten" });
  const ran = await r.call("touch original");
  assert.equal(ran.result.denied, true);
  assert.match(ran.result.content, /updated_input is not a JSON object/);
  assert.equal(await exists(join(r.ws, "original")), false, "the original never runs");
  assert.equal(await exists(join(r.ws, "rewritten")), false);
});
