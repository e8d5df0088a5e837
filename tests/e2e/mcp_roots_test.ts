import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { mcpWorkspace, toolMessages } from "./_mcp_run.ts";

async function rootsSeen(config: Record<string, unknown>): Promise<string> {
  await using ws = await mcpWorkspace(
    [scriptToolCall("mcp_fx_roots", {}), scriptText("done")],
    { fx: fixtureStdio() },
    { config },
  );
  await Deno.mkdir(`${ws.dir}/src`);
  const r = await ws.run(["run", "list roots"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const seen = String(toolMessages(ws.fake.turnRequests()[1])[0].content);
  return seen.replaceAll(ws.dir, "<ws>");
}

Deno.test("e2e mcp: roots are advertised only when options.mcp_roots configures them", async () => {
  const none = await rootsSeen({});
  assert.doesNotMatch(none, /file:\/\//);
  const some = await rootsSeen({ options: { mcp_roots: ["src"] } });
  assert.match(some, /file:\/\/<ws>\/src/);
});
