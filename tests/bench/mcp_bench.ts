/**
 * MCP client figures (printed, not asserted):
 * - five stdio servers started together: time until all are ready, against the slowest
 *   of them started alone (target: within 20%). Two sets: five identical servers
 *   (each a Deno process importing the SDK: CPU-bound start), and five whose start is
 *   staggered by an extra wait of 100–500 ms (like servers that wait on I/O);
 *   A third set uses a minimal MCP server in python3 (when present) with the same
 *   stagger: its start costs little CPU, so it shows the client's own parallelism;
 * - the cost of one MCP tool call over stdio, through mopac's Tool adapter and with the
 *   SDK client alone on the same connection (the difference is mopac's overhead).
 * Run: deno run --allow-all tests/bench/mcp_bench.ts [--runs 5] [--calls 300]
 * summary_bench.ts takes its five-server figure from `startTime` and `fixture`.
 */
import { parseArgs } from "node:util";
import { createMcpManager } from "../../src/mcp/manager.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { findTool, fixtureStdio, toolContext } from "../_support/mcp_helpers.ts";

// Set from the arguments when this file runs as the benchmark (not when imported).
let RUNS = 5;
let CALLS = 300;
let logDir = "";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Time until `start()` resolved with every server connected (their stderr logs to `logs`). */
export async function startTime(
  servers: Record<string, McpServerConfig>,
  logs = logDir,
): Promise<number> {
  const manager = createMcpManager(servers, { logDir: logs });
  const t = performance.now();
  const statuses = await manager.start();
  const elapsed = performance.now() - t;
  await manager.close();
  const down = statuses.filter((s) => s.status !== "connected");
  if (down.length > 0) throw new Error(`not ready: ${JSON.stringify(down)}`);
  return elapsed;
}

/** Answers initialize and tools/list after `delay` ms; nothing else. */
const LIGHT_SERVER = `
import sys, json, time
time.sleep(float(sys.argv[1]) / 1000)
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    r = {"tools": []} if m["method"] == "tools/list" else {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "light", "version": "1"}}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
`;

export const fixture = (d: number) => fixtureStdio({}, d > 0 ? ["--delay-ms", String(d)] : []);
const light = (d: number) => ({ command: "python3", args: ["-c", LIGHT_SERVER, String(d)] });

async function compare(
  label: string,
  delays: number[],
  make: (d: number) => McpServerConfig = fixture,
): Promise<void> {
  const servers = Object.fromEntries(delays.map((d, i) => [`s${i}`, make(d)]));
  const slowest = `s${delays.indexOf(Math.max(...delays))}`;
  await startTime({ [slowest]: servers[slowest] }); // warm the module cache
  const alone: number[] = [];
  const together: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    alone.push(await startTime({ [slowest]: servers[slowest] }));
    together.push(await startTime(servers));
  }
  const a = median(alone);
  const all = median(together);
  console.log(
    `${label}: slowest alone ${a.toFixed(0)} ms, all five ${all.toFixed(0)} ms ` +
      `(${((all / a - 1) * 100).toFixed(0)}% over; target ≤ 20%)`,
  );
}

async function callCost(): Promise<void> {
  const manager = createMcpManager({ fx: fixtureStdio() }, { logDir });
  await manager.start();
  const echo = findTool(manager.tools(), "mcp_fx_echo");
  const ctx = toolContext();
  const conn = manager.connection("fx")!;
  for (let i = 0; i < 50; i++) await echo.run({ text: "warm" }, ctx);
  const viaTool: number[] = [];
  const viaConnection: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now();
    await echo.run(echo.parse({ text: `call ${i}` }), ctx);
    viaTool.push(performance.now() - t);
    t = performance.now();
    await conn.callTool("echo", { text: `call ${i}` });
    viaConnection.push(performance.now() - t);
  }
  await manager.close();
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  console.log(
    `tool call over stdio (echo, ${CALLS} calls, median): via Tool adapter ${
      us(median(viaTool))
    }, via connection ${us(median(viaConnection))}`,
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { runs: { type: "string", default: "5" }, calls: { type: "string", default: "300" } },
  });
  RUNS = Number(values.runs);
  CALLS = Number(values.calls);
  logDir = await Deno.makeTempDir({ prefix: "mopac-bench-mcp-" });
  console.log(`deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, ${RUNS} runs`);
  await compare("five identical stdio servers", [0, 0, 0, 0, 0]);
  await compare("five staggered stdio servers (+100..500 ms)", [100, 200, 300, 400, 500]);
  const python = await new Deno.Command("python3", { args: ["--version"] }).output().catch(() =>
    null
  );
  if (python?.success) {
    await compare("five light python3 servers (+100..500 ms)", [100, 200, 300, 400, 500], light);
  }
  await callCost();
  await Deno.remove(logDir, { recursive: true });
}
