/**
 * The signal scan of issue 16, in the suite: SIGINT and SIGTERM at 44 moments from
 * 0 ms to the end of a run with a stdio MCP server configured (24 of them in the first
 * 600 ms, where start-up is), json and stream-json alternating. Every signal mopac's
 * listener could see ends the run with 130/143 and a `cancelled` result on stdout;
 * none leaves a process of the server's group behind. A signal sent before Deno ran
 * main.ts's first line (no listener yet, read from /proc) can only end the process by
 * its default action: those moments are counted apart. tests/bench/signal_scan_bench.ts
 * is the full-size scan.
 */
import assert from "node:assert/strict";
import { baselineMs, counts, moments, scan, scanWorkspace } from "./_signal_scan.ts";

Deno.test({
  name: "e2e signals: SIGINT/SIGTERM at 44 moments of a run with MCP all end as cancelled",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const s = await scanWorkspace();
    let endMs: number;
    try {
      endMs = await baselineMs(s);
    } finally {
      await s.close();
    }
    const list = moments({ startup: 24, startupMs: 600, rest: 20, endMs: endMs * 0.9 });
    // One run at a time: the scan shares the machine with the rest of the suite.
    const results = await scan(list, 1);
    const c = counts(results);
    console.log(`signal scan: ${JSON.stringify(c)} (run ${Math.round(endMs)} ms undisturbed)`);
    const wrong = results.filter((r) => r.outcome === "wrong");
    assert.deepEqual(wrong, [], JSON.stringify(wrong, null, 1));
    // The moments must have hit the run: most of them mopac's listener saw.
    assert.ok(c.handled >= 20, JSON.stringify(c));
    // A run that goes faster than the undisturbed one measured first (the load on the
    // machine changes) ends before some late moments: a quarter of them at most.
    assert.ok(c.finished_first <= list.length / 4, JSON.stringify(c));
  },
});
