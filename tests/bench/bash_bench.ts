/**
 * Overhead of a `bash` tool call beyond the bare spawn of bash itself.
 *   deno run -A tests/bench/bash_bench.ts [--runs 200]
 * Measures, for `true`, the median and p90 over 4×N runs (after a warm-up) of:
 *   bare spawn           – Deno.Command("bash", ["-c", "true"]).output()
 *   detached + streaming – spawn() with `detached: true` and streamed stdout/stderr: the least
 *                          the tool must do (own process group to kill whole trees, output
 *                          readable while running); Deno forks instead of posix_spawn then
 *   tool call            – parse + access (shell policy parse) + run, as the tool runner calls them
 *   parseShell           – the policy parse alone
 * and prints the tool's overhead over both spawns (target: ≤ 5 ms median over the bare spawn).
 */
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import { loadShellParser, parseShell } from "../../src/tools/shell/parse.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { testToolContext } from "../_support/tool_context.ts";
import { runsFrom } from "./_runs.ts";

// The full parser, for scripts that are not plain commands (shell/plain.ts).
await loadShellParser();

const runs = runsFrom(Deno.args, "bash_bench", 200);
const ws = await Deno.makeTempDir();
const jobs = new JobManager();
const tool = createBashTool({ jobs });
const ctx: ToolContext = testToolContext(ws, { session_id: "bench", shellCwd: "" });

async function spawn(): Promise<void> {
  await new Deno.Command("bash", {
    args: ["-c", "true"],
    cwd: ws,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/** The least any implementation of the contract does: own process group, streamed output. */
async function spawnDetachedStreaming(): Promise<void> {
  const child = new Deno.Command("bash", {
    args: ["-c", "true"],
    cwd: ws,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const _ of s) { /* discard */ }
  };
  await Promise.all([child.status, drain(child.stdout), drain(child.stderr)]);
}

async function toolCall(): Promise<void> {
  const input = tool.parse({ command: "true" });
  await tool.access!(input, ctx);
  const out = await tool.run(input, ctx);
  if (out.is_error) throw new Error(out.content);
}

async function measure(fn: () => Promise<void> | void): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

// Interleave the variants so machine noise hits all alike.
const spawnTimes: number[] = [];
const detachedTimes: number[] = [];
const toolTimes: number[] = [];
for (let round = 0; round < 4; round++) {
  spawnTimes.push(...await measure(spawn));
  detachedTimes.push(...await measure(spawnDetachedStreaming));
  toolTimes.push(...await measure(toolCall));
}
for (const xs of [spawnTimes, detachedTimes, toolTimes]) xs.sort((a, b) => a - b);
const parseTimes = await measure(() => void parseShell("git status && npm test | tee out.log"));

const line = (name: string, xs: number[]) =>
  console.log(`  ${name.padEnd(22)} median ${fmt(pct(xs, 0.5))}  p90 ${fmt(pct(xs, 0.9))}`);
console.log(`bash tool overhead, ${toolTimes.length} runs each (Deno ${Deno.version.deno})`);
line("bare spawn", spawnTimes);
line("detached + streaming", detachedTimes);
line("tool call", toolTimes);
line("parseShell", parseTimes);
const med = (xs: number[]) => pct(xs, 0.5);
console.log(
  `  overhead vs bare spawn          ${fmt(med(toolTimes) - med(spawnTimes))} (target ≤ 5 ms)`,
);
console.log(`  overhead vs detached+streaming ${fmt(med(toolTimes) - med(detachedTimes))}`);

await jobs.dispose();
await Deno.remove(ws, { recursive: true });
