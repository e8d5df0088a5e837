/** MCP conformance client scenarios, share "basics" (see tests/mcp/conformance_run.ts). */
import assert from "node:assert/strict";
import {
  listedClientScenarios,
  registerScenarios,
  SHARES,
  suiteMissing,
} from "./conformance_run.ts";

registerScenarios("basics");

Deno.test({
  name: "MCP conformance: the shares hold every client scenario the suite lists (26)",
  ignore: suiteMissing,
  fn: async () => {
    const ours = Object.values(SHARES).flat().sort();
    assert.equal(new Set(ours).size, ours.length, "no scenario twice");
    assert.deepEqual(ours, (await listedClientScenarios()).sort());
    assert.equal(ours.length, 26);
  },
});
