/**
 * Streaming figures of issue 20 (printed, not asserted), for 20,000 and 200,000
 * four-character deltas of answer text, reasoning and tool-call arguments:
 * - the provider layer (createProvider → SDK request → SSE reader → assembler) in a
 *   child process per case: deltas/s (best of --runs, 3, after a warm-up) and the child's peak
 *   RSS, with the body read in 16 KiB pieces (a busy connection) and, for 200,000 text
 *   deltas, one event per read (a provider flushing every token);
 * - `mopac run` end to end against the fake server under narrow flags: wall time (the
 *   fake server shares it), mopac's CPU time and peak RSS, `-o json --ephemeral` for each case, and for the largest text case also
 *   text and stream-json output and a session on disk (snapshots written and indexed).
 * The last lines compare the acceptance figures with their targets.
 * Wall time, CPU and peak RSS come from tests/bench/_process.ts (wait4's rusage).
 *
 * Run: deno task bench stream [-- --sizes 20000,200000 --kinds text,reasoning,arguments
 *      --runs 3]   (--runs: how often each provider-layer case is timed; the best counts)
 */
import { parseArgs } from "node:util";
import { positiveInt } from "./_runs.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "provider-case": { type: "string" },
    sizes: { type: "string", default: "20000,200000" },
    kinds: { type: "string", default: "text,reasoning,arguments" },
    runs: { type: "string", default: "3" },
  },
});
const RUNS = positiveInt("stream_bench", "--runs", values.runs);

// Child mode: one provider-layer case, its figures as JSON on stdout.
if (values["provider-case"]) {
  const [kind, count, readBytes] = values["provider-case"].split(":");
  const { providerCase } = await import("./_stream_provider.ts");
  console.log(JSON.stringify(await providerCase(kind, Number(count), Number(readBytes), RUNS)));
  Deno.exit(0);
}

const { cleanDenoEnv, denoFlags, MAIN } = await import("../_support/run_mopac.ts");
const { scriptText, scriptToolCall } = await import("../_support/fake_openai.ts");
const { FAKE_ENV, workspace } = await import("../_support/workspace.ts");
const { measureProcess, measuringTool } = await import("./_process.ts");
type DeltaKind = import("../_support/delta_stream.ts").DeltaKind;

const SIZES = values.sizes.split(",").map(Number);
const KINDS = values.kinds.split(",") as DeltaKind[];
const PIECE = "abcd";
const tmp = await Deno.makeTempDir({ prefix: "mopac-bench-" });

/** Runs `deno <args>` to its end: wall time, CPU, peak RSS and what it printed (_process.ts). */
async function measure(args: string[], cwd: string, env: Record<string, string>) {
  const r = await measureProcess({
    cmd: [Deno.execPath(), ...args],
    cwd,
    env: { ...cleanDenoEnv(), ...env },
  });
  return { ...r, cpuS: r.cpuMs / 1000 };
}

const n = (x: number) => x.toLocaleString("en-US");
const mb = (x: number) => `${x.toFixed(0)} MB`;

async function providerLayer(kind: DeltaKind, count: number, readBytes: number) {
  const r = await measure(
    [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      `--provider-case=${kind}:${count}:${readBytes}`,
      `--runs=${RUNS}`,
    ],
    tmp,
    {},
  );
  if (r.code !== 0) throw new Error(`provider case ${kind} ${count} failed: ${r.stderr}`);
  const f = JSON.parse(r.stdout) as {
    deltasPerSecond: number;
    deltasPerCpuSecond: number;
    answerChars: number;
  };
  if (f.answerChars !== count * PIECE.length) throw new Error(`${kind}: answer incomplete`);
  const reads = readBytes > 0 ? `${readBytes / 1024} KiB` : "1 event";
  const rate = (x: number) => n(Math.round(x)).padStart(9);
  console.log(
    `  ${kind.padEnd(10)} ${n(count).padStart(8)}  ${reads.padStart(8)}  ` +
      `${rate(f.deltasPerSecond)} deltas/s (${rate(f.deltasPerCpuSecond)} per CPU-second)  ` +
      `peak RSS ${mb(r.rssMb)}`,
  );
  return f.deltasPerSecond;
}

/** `mopac run` against a fake server streaming `count` deltas of `kind`. */
async function mopacRun(kind: DeltaKind, count: number, format: string, onDisk = false) {
  const body = PIECE.repeat(count);
  const turns = kind === "text"
    ? [scriptText(body, { chunkSize: PIECE.length })]
    : kind === "reasoning"
    ? [scriptText("ok", { reasoning: body, chunkSize: PIECE.length })]
    : [
      // `{"file_path":"big.txt","content":"` is 32 characters: 8 more deltas.
      scriptToolCall("write", { file_path: "big.txt", content: body }, "call_big", {
        chunkSize: PIECE.length,
      }),
      scriptText("done"),
    ];
  // An answer this long is past the fake model's context window: no summarizing turn.
  const ws = await workspace({ turns }, { options: { disable_auto_summarize: true } });
  try {
    const session = onDisk ? [] : ["--ephemeral"];
    const args = ["run", ...denoFlags(ws.perms), MAIN, "run", "-o", format, ...session, "go"];
    const r = await measure(args, ws.dir, FAKE_ENV);
    if (r.code !== 0) throw new Error(`mopac run (${kind}) exited ${r.code}: ${r.stderr}`);
    if (kind === "arguments" && (await Deno.stat(`${ws.dir}/big.txt`)).size !== body.length) {
      throw new Error("the written file is incomplete");
    }
    const how = `${format}${onDisk ? ", on disk" : ""}`;
    // Wall time includes the fake server, which runs in this process; CPU is mopac's own.
    const cpu = ` (CPU ${r.cpuS.toFixed(2)} s)`;
    console.log(
      `  ${kind.padEnd(10)} ${n(count).padStart(8)}  ${how.padEnd(20)} ` +
        `${(r.ms / 1000).toFixed(2).padStart(6)} s${cpu}  peak RSS ${mb(r.rssMb)}`,
    );
    return r.rssMb;
  } finally {
    await ws.close();
  }
}

try {
  console.log(
    `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; ${PIECE.length}-character ` +
      `deltas; peak RSS from ${await measuringTool()}`,
  );
  console.log(`provider layer (child process per case, best of ${RUNS} after a warm-up):`);
  let bestRate = 0;
  for (const kind of KINDS) {
    for (const count of SIZES) {
      const rate = await providerLayer(kind, count, 16 * 1024);
      if (kind === "text" && count === 200_000) bestRate = rate;
    }
  }
  if (KINDS.includes("text") && SIZES.includes(200_000)) await providerLayer("text", 200_000, 0);

  console.log("mopac run against the fake server (narrow flags; --ephemeral unless on disk):");
  let runRss = 0;
  for (const kind of KINDS) {
    for (const count of SIZES) {
      const rss = await mopacRun(kind, count, "json");
      if (kind === "text" && count === 200_000) runRss = rss;
    }
  }
  if (KINDS.includes("text")) {
    // The other output formats, and a session on disk (snapshots written and indexed).
    const big = Math.max(...SIZES);
    for (const format of ["text", "stream-json"]) {
      runRss = Math.max(runRss, await mopacRun("text", big, format));
    }
    runRss = Math.max(runRss, await mopacRun("text", big, "json", true));
  }
  if (bestRate > 0 && runRss > 0) {
    console.log(
      `acceptance: 200,000 text deltas through the provider layer: ${n(Math.round(bestRate))} ` +
        `deltas/s (target ≥ 200,000); through mopac run: peak RSS ${mb(runRss)} ` +
        `(highest of json, text, stream-json and on disk; target < 150 MB)`,
    );
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
