/**
 * Every tool result is redacted before the model sees it: what a tool prints, a
 * secret cut in half by the runner's truncation, a hook's note, and a denial's reason.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createToolRunner } from "../../src/agent/tool_runner.ts";
import { defineTool } from "../../src/tools/define.ts";
import { collectSecrets } from "../../src/secrets/redactor.ts";
import type { Decision, Gate } from "../../src/permission/types.ts";
import { testToolContext } from "../_support/tool_context.ts";

const SECRET = "sk-live-5f1c9e0a7b3d4c2e8f6a";

/** Prints whatever the call asks for. */
const printer = defineTool({
  name: "print",
  description: "Prints the text",
  schema: z.object({ text: z.string() }),
  run: (input) => Promise.resolve({ content: input.text }),
});

function runnerWith(decide: (text: string) => Decision) {
  const gate: Gate = {
    allows: () => true,
    check: (req) => Promise.resolve(decide((req.input as { text: string }).text)),
    paths: { readable: () => true, denyGlobs: [] },
  };
  const { signal: _s, ...context } = testToolContext("/tmp");
  const redactor = collectSecrets([SECRET]);
  const runner = createToolRunner({
    tools: () => [printer],
    gate,
    context,
    limits: { maxChars: 100, maxLines: 1000 },
    summarize: (i) => JSON.stringify(i),
    redact: (s) => redactor.redact(s),
  });
  return (text: string) =>
    runner.run(
      { type: "tool_call", id: "c1", name: "print", input: JSON.stringify({ text }) },
      new AbortController().signal,
    );
}

Deno.test("tool results are redacted: output, a secret across the cut, hook notes, denials", async () => {
  const allow = runnerWith(() => ({ allow: true, context: `note ${SECRET}` }));
  const plain = await allow(`TOKEN=${SECRET}`);
  assert.equal(plain.result.content, "TOKEN=[REDACTED]\n\nnote [REDACTED]");
  // The head keeps 50 characters: the secret starts at 40 and would be cut at its 10th.
  const long = await allow(`${"a".repeat(40)}${SECRET}${"b".repeat(200)}`);
  assert.ok(!long.result.content.includes(SECRET.slice(0, 10)), long.result.content);
  assert.match(long.result.content, /^a{40}\[REDACTED\]/);

  const deny = runnerWith(() => ({ allow: false, rule: "test", reason: `saw ${SECRET}` }));
  const denied = await deny("x");
  assert.ok(!denied.result.content.includes(SECRET), denied.result.content);
  assert.ok(!denied.denial!.reason.includes(SECRET));
});
