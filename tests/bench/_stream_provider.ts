/**
 * One provider-layer case of stream_bench.ts, run in its own process: `count` deltas
 * of `kind` through createProvider (the SDK's request, the SSE reader, the assembler)
 * from a fetch that serves a generated body (generating it is counted too), timed after
 * a warm-up run: wall time of the fastest of `runs`, and the CPU time that run used.
 */
import process from "node:process";
import { createProvider } from "../../src/provider/provider.ts";
import { deltaFetch, type DeltaKind } from "../_support/delta_stream.ts";
import { testModel, userRequest } from "../provider/helpers.ts";

export async function providerCase(kind: string, count: number, readBytes: number, runs = 3) {
  const run = async (n: number) => {
    const provider = createProvider(testModel(), {
      fetch: deltaFetch(kind as DeltaKind, n, { readBytes }),
    });
    let deltas = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const turn = await provider.complete(userRequest(), (e) => {
      if (e.type === "text" || e.type === "reasoning" || e.type === "tool_call_delta") deltas++;
    });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const part = turn.parts[0];
    const answer = part.type === "tool_call" ? part.input : (part as { text: string }).text;
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, deltas, answerChars: answer.length };
  };
  await run(1000); // loads the SDK, compiles the path
  let best = { ms: Infinity, cpuMs: Infinity, deltas: 0, answerChars: 0 };
  for (let i = 0; i < runs; i++) {
    const r = await run(count);
    if (r.ms < best.ms) best = r;
  }
  return {
    deltasPerSecond: (count / best.ms) * 1000,
    // The same run per second of CPU this process used: less sensitive to other load.
    deltasPerCpuSecond: (count / best.cpuMs) * 1000,
    deltas: best.deltas,
    answerChars: best.answerChars,
  };
}
