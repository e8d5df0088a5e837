/**
 * The full-size signal scan of issue 16 (the suite runs a smaller one): SIGINT and
 * SIGTERM at many moments from 0 ms to the end of a `mopac run` with a stdio MCP server
 * configured, half of them in the first second. Prints how each moment ended:
 * handled (130/143 with a `cancelled` result), before_runtime (sent before Deno ran
 * main.ts's first line: the default action), finished_first (the run was over), and
 * wrong (with details). Exits 1 when any moment is wrong.
 *
 * Run: deno run --allow-all tests/bench/signal_scan_bench.ts [--moments 200] [--parallel 2]
 *      [--runs 3]   (undisturbed runs timed first; the scan covers up to the fastest)
 */
import { parseArgs } from "node:util";
import {
  baselineMs,
  counts,
  type MomentResult,
  moments,
  scan,
  scanWorkspace,
} from "../e2e/_signal_scan.ts";
import { positiveInt } from "./_runs.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    moments: { type: "string", default: "200" },
    parallel: { type: "string", default: "2" },
    runs: { type: "string", default: "3" },
  },
});
const baselineRuns = positiveInt("signal_scan_bench", "--runs", values.runs);
const total = Number(values.moments);
const parallel = Number(values.parallel);

const s = await scanWorkspace();
const runs: number[] = [];
try {
  for (let i = 0; i < baselineRuns; i++) runs.push(await baselineMs(s));
} finally {
  await s.close();
}
const endMs = Math.min(...runs);
console.log(
  `undisturbed run: ${runs.map(Math.round).join(", ")} ms; scanning up to ${Math.round(endMs)} ms`,
);

const startup = Math.ceil(total / 2);
const list = moments({ startup, startupMs: 1000, rest: total - startup, endMs: endMs });
const t0 = performance.now();
const results = await scan(list, parallel);
const secs = ((performance.now() - t0) / 1000).toFixed(0);

const phase = (r: MomentResult) =>
  r.ms < 200 ? "0-199 ms" : r.ms < 1000 ? "200-999 ms" : "1000 ms-end";
const table = new Map<string, Record<string, number>>();
for (const r of results) {
  const row = table.get(phase(r)) ?? {};
  row[r.outcome] = (row[r.outcome] ?? 0) + 1;
  table.set(phase(r), row);
}
for (const [p, row] of table) console.log(`${p.padEnd(12)} ${JSON.stringify(row)}`);
const byKind = (sig: string) => counts(results.filter((r) => r.signal === sig));
console.log(`SIGTERM: ${JSON.stringify(byKind("SIGTERM"))}`);
console.log(`SIGINT:  ${JSON.stringify(byKind("SIGINT"))}`);
const last = results.filter((r) => r.outcome === "before_runtime").at(-1);
if (last) console.log(`latest moment still before Deno ran main.ts: ${last.ms} ms`);
const c = counts(results);
console.log(`total ${results.length} moments in ${secs} s: ${JSON.stringify(c)}`);
for (const r of results.filter((r) => r.outcome === "wrong")) {
  console.log(`WRONG at ${r.ms} ms ${r.signal} ${r.output}: ${r.detail}`);
}
Deno.exit(c.wrong > 0 ? 1 : 0);
