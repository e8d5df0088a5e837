import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import type { ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

const isChild = (req: ParsedRequest) =>
  JSON.stringify(req.messages[0]).includes("You are a mopac sub-agent");
/** Prices in tests/_support/workspace.ts: $1 per 1M input tokens, so 100k input tokens cost $0.10. */
const costing = (dollars: number) => ({ prompt_tokens: dollars * 1_000_000, completion_tokens: 0 });

Deno.test("e2e: a sub-agent gets only what is left of the run's cost limit", async () => {
  let childRequests = 0;
  const turns = (req: ParsedRequest): ScriptedTurn => {
    if (isChild(req)) {
      childRequests++;
      // Each child step costs $0.50: with $0.40 left, the child must stop after one.
      return scriptToolCall("ls", { path: "." }, undefined, { usage: costing(0.5) });
    }
    const parentTurn = req.messages.filter((m) => m.role === "assistant").length;
    return parentTurn === 0
      ? scriptToolCall("agent", { prompt: "list the files" }, "call_agent", { usage: costing(0.6) })
      : scriptText("never reached", { usage: costing(0.01) });
  };
  await using ws = await workspace({ turns });
  const r = await ws.run(["run", "-o", "stream-json", "--max-cost", "1", "delegate"]);
  assert.equal(r.code, 4, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  assert.equal(childRequests, 1);
  const ev = events(r.stdout);
  const child = ev.find((e) => e.type === "tool_result" && e.name === "agent")!;
  assert.match(String(child.output), /sub-agent stopped: max cost reached/);
  const result = ev.at(-1)!;
  assert.equal(result.subtype, "error_budget");
  assert.ok(Math.abs((result.cost_usd as number) - 1.1) < 1e-9, String(result.cost_usd));
});
