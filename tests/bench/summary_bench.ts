/**
 * The figures of issue 18 in one table (printed, not asserted): median and spread
 * (p10–p90) of whole `mopac` processes under narrow flags against one local fake
 * model server that answers at once, each with the CPU time it used (less disturbed
 * by other load than wall time) and the load average while it ran:
 *   --version; S0 (one request, start → exit); S20 (20 `bash` steps of `true`, then the
 *   answer) with the OS jail on and off, and per step ((S20 − S0) / 20, paired by
 *   round; and (S20 − S1) / 19 after the first step, which loads the shell parser and
 *   starts the jail); the first step (S1 − S0), and the same behind a model that streams
 *   the call's arguments for 200 ms after naming the tool (the jail then starts during the
 *   stream); peak RSS of S20; the first request's arrival after start (from S0);
 * and, in process: provider-layer stream throughput (200,000 text deltas, through
 * stream_bench.ts's child mode), five stdio MCP servers to all-ready (mcp_bench.ts)
 * and the session figures (session_bench.ts). Each row names the command that reruns it.
 *
 *   deno task bench summary [-- --runs 15] [--case version,s0,s20,stream,mcp,session]
 *                           [--layout source,built] [--against DIR]
 *
 * Process cases run interleaved, round by round, after a warm-up round. `--against DIR`
 * names another checkout of mopac (e.g. `git archive main | tar -x -C DIR`): its main.ts
 * runs in the same rounds on the same fake, so load hits both alike; its rows follow ours.
 * `--layout`: the process cases run main.ts from source, and the output of `deno task
 * build` (one bundle split into chunks, built afresh into a temp folder) in the same
 * rounds; its rows say [built]. S20 with the jail on also runs with the V8 flags that
 * `deno task install` and the compiled binaries carry (deno.json), as those run it.
 */
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cleanDenoEnv, denoFlags, MAIN, REPO } from "../_support/run_mopac.ts";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";
import { JAIL } from "../_support/jail.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { loadAverage, measureProcess, measuringTool, median, quantile } from "./_process.ts";
import { listFigures, loadFigures } from "./session_bench.ts";
import { startTime } from "./mcp_bench.ts";
import { buildBundle, shippedV8Flags } from "../_support/bundle.ts";

const CASES = ["version", "s0", "s20", "stream", "mcp", "session"];
const LAYOUTS = ["source", "built"];
const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "15" },
    case: { type: "string", default: CASES.join(",") },
    layout: { type: "string", default: LAYOUTS.join(",") },
    against: { type: "string" },
  },
});
const RUNS = Number(values.runs);
const chosen = values.case.split(",");
const layouts = values.layout.split(",");
const unknown = chosen.filter((c) => !CASES.includes(c));
const badLayout = layouts.filter((l) => !LAYOUTS.includes(l)).length > 0 || layouts.length === 0;
if (!Number.isInteger(RUNS) || RUNS < 1 || unknown.length > 0 || badLayout) {
  console.error(
    `summary: --runs must be a positive integer; cases are ${CASES.join(", ")}; ` +
      `layouts are ${LAYOUTS.join(", ")}`,
  );
  Deno.exit(2);
}
const STEPS = 20;
/** How long the "S1 slow" model streams its call's arguments after naming the tool. */
const STREAM_MS = 200;
const rerun = (c: string) => `deno task bench summary -- --case ${c} --runs ${RUNS}`;

/** The trees whose main.ts run: ours, and the one to compare with. */
const trees: Array<{ name: string; main: string; root: string }> = [];
if (layouts.includes("source")) trees.push({ name: "", main: MAIN, root: REPO });
const processCases = chosen.some((c) => ["version", "s0", "s20"].includes(c));
let built: string | undefined;
if (layouts.includes("built") && processCases) {
  built = await Deno.makeTempDir({ prefix: "mopac-bench-build-" });
  trees.push({ name: " [built]", main: await buildBundle(built), root: built });
}
if (values.against) {
  const root = resolve(values.against);
  trees.push({ name: ` [${basename(root)}]`, main: `${root}/main.ts`, root });
}

interface Sample {
  ms: number;
  cpuMs: number;
  rssMb: number;
  load: number;
  /** From the fork to the fake's receipt of the first request (S0 only). */
  firstMs?: number;
}
const samples = new Map<string, Sample[]>();
const add = (key: string, s: Sample) => samples.set(key, [...(samples.get(key) ?? []), s]);

interface Row {
  figure: string;
  median: string;
  spread: string;
  cpu: string;
  target: string;
  load: string;
  rerun: string;
}
const rows: Row[] = [];
const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);
function row(
  figure: string,
  xs: number[],
  unit: string,
  opts: { cpu?: number[]; target?: string; load?: number[]; rerun: string; digits?: 0 | 1 },
) {
  const f = opts.digits === 1 ? f1 : f0;
  rows.push({
    figure,
    median: `${f(median(xs))} ${unit}`,
    spread: `${f(quantile(xs, 0.1))}–${f(quantile(xs, 0.9))}`,
    cpu: opts.cpu ? `${f(median(opts.cpu))} ${unit}` : "",
    target: opts.target ?? "",
    load: opts.load ? f1(median(opts.load)) : "",
    rerun: opts.rerun,
  });
}

// ---- whole processes against the fake ----
const ws = await workspace({
  turns: (req) => {
    const first = req.messages.find((m) => m.role === "user");
    const steps = req.messages.filter((m) => m.role === "tool").length;
    // "S20: …" asks for 20 steps, "S1: …" for one, anything else for none; "S1 slow: …"
    // is a model that names the tool, then takes STREAM_MS for the arguments.
    const [, count, slow] = /\bS(\d+)( slow)?:/.exec(JSON.stringify(first?.content ?? "")) ?? [];
    const asked = Number(count ?? 0);
    if (steps >= asked) {
      return scriptText("ok");
    }
    // A different command each step: the same call over and over is a loop (exit 5).
    return scriptToolCall("bash", { command: `true ${steps}` }, `call_${steps}`, {
      ...(slow ? { fault: { stallAfterChunks: 2, stallMs: STREAM_MS } } : {}),
    });
  },
});

async function runMopac(
  tree: typeof trees[number],
  args: string[],
  env: Record<string, string> = {},
  runtime: string[] = [],
) {
  const perms = {
    ...ws.perms,
    read: [...(ws.perms.read ?? []), tree.root],
    env: [...(ws.perms.env as string[]), "MOPAC_SANDBOX"],
  };
  const before = ws.fake.requests.length;
  const load = loadAverage();
  const r = await measureProcess({
    cmd: [Deno.execPath(), "run", ...runtime, ...denoFlags(perms), tree.main, ...args],
    cwd: ws.dir,
    env: { ...cleanDenoEnv(), ...FAKE_ENV, ...env },
  });
  if (r.code !== 0) {
    throw new Error(
      `mopac ${args.join(" ")} exited ${r.code}: ${r.stderr.slice(0, 800)} ${
        r.stdout.slice(0, 800)
      }`,
    );
  }
  const first = ws.fake.requests[before];
  return {
    ms: r.ms,
    cpuMs: r.cpuMs,
    rssMb: r.rssMb,
    load,
    firstMs: first ? first.receivedAt - r.startedAt : undefined,
  };
}

const SHIPPED_V8 = await shippedV8Flags();
const jailModes: Array<[string, Record<string, string>]> = JAIL
  ? [["jail on", {}], ["jail off", { MOPAC_SANDBOX: "off" }]]
  : [["jail off", { MOPAC_SANDBOX: "off" }]];

async function round(keep: boolean): Promise<void> {
  for (const tree of trees) {
    const put = (key: string, s: Sample) => keep && add(`${key}${tree.name}`, s);
    if (chosen.includes("version")) put("version", await runMopac(tree, ["--version"]));
    for (const [mode, env] of jailModes) {
      if (chosen.includes("s0") || chosen.includes("s20")) {
        put(`s0 ${mode}`, await runMopac(tree, ["run", "-o", "json", "say ok"], env));
      }
      if (chosen.includes("s20")) {
        put(`s1 ${mode}`, await runMopac(tree, ["run", "-o", "json", "S1: run true"], env));
        if (mode === "jail on") {
          const args = ["run", "-o", "json", "S1 slow: run true"];
          put(`s1slow ${mode}`, await runMopac(tree, args, env));
        }
        put(`s20 ${mode}`, await runMopac(tree, ["run", "-o", "json", "S20: run true"], env));
        if (mode === jailModes[0][0]) {
          const args = ["run", "-o", "json", "S20: run true"];
          put(`s20v8 ${mode}`, await runMopac(tree, args, env, [SHIPPED_V8]));
        }
      }
    }
  }
}

const tool = await measuringTool();
const loadAtStart = loadAverage();
try {
  if (processCases) {
    await round(false); // warm-up: Deno's caches, the page cache
    for (let i = 0; i < RUNS; i++) await round(true);
  }
} finally {
  await ws.close();
  if (built) await Deno.remove(built, { recursive: true });
}

for (const tree of trees) {
  const get = (key: string) => samples.get(`${key}${tree.name}`) ?? [];
  const proc = (figure: string, key: string, target: string, c: string) => {
    const xs = get(key);
    if (xs.length === 0) return;
    row(`${figure}${tree.name}`, xs.map((s) => s.ms), "ms", {
      cpu: xs.map((s) => s.cpuMs),
      load: xs.map((s) => s.load),
      target,
      rerun: rerun(c),
    });
  };
  proc("mopac --version", "version", "", "version");
  for (const [mode] of jailModes) {
    proc(`S0, ${mode}`, `s0 ${mode}`, "≤ 150 ms", "s0");
    const s0 = get(`s0 ${mode}`);
    const first = s0.map((s) => s.firstMs).filter((x): x is number => x !== undefined);
    if (first.length > 0) {
      row(`first request after start, ${mode}${tree.name}`, first, "ms", {
        load: s0.map((s) => s.load),
        rerun: rerun("s0"),
      });
    }
  }
  for (const [mode] of jailModes) {
    proc(`S20, ${mode}`, `s20 ${mode}`, mode === "jail on" ? "≤ 300 ms" : "", "s20");
    const s0 = get(`s0 ${mode}`);
    const s20 = get(`s20 ${mode}`);
    if (s20.length > 0 && s0.length === s20.length) {
      // Paired by round: the S0 and S20 of one round saw the same load.
      row(`per step, ${mode}${tree.name}`, s20.map((s, i) => (s.ms - s0[i].ms) / STEPS), "ms", {
        cpu: s20.map((s, i) => (s.cpuMs - s0[i].cpuMs) / STEPS),
        load: s20.map((s) => s.load),
        target: mode === "jail on" ? "≤ 6 ms + jail" : "≤ 6 ms",
        rerun: rerun("s20"),
        digits: 1,
      });
    }
    const s1 = get(`s1 ${mode}`);
    if (s1.length > 0 && s0.length === s1.length) {
      row(`first step (S1 − S0), ${mode}${tree.name}`, s1.map((s, i) => s.ms - s0[i].ms), "ms", {
        load: s1.map((s) => s.load),
        rerun: rerun("s20"),
      });
    }
    // The jail starts while the call streams in: behind a model that takes its time, the
    // first step costs what a later one does.
    const slow = get(`s1slow ${mode}`);
    if (slow.length > 0 && s0.length === slow.length) {
      row(
        `first step behind a call streamed for ${STREAM_MS} ms (S1 − S0 − ${STREAM_MS}), ${mode}${tree.name}`,
        slow.map((s, i) => s.ms - s0[i].ms - STREAM_MS),
        "ms",
        { load: slow.map((s) => s.load), rerun: rerun("s20") },
      );
    }
    if (s20.length > 0 && s1.length === s20.length) {
      const later = (a: number, b: number) => (a - b) / (STEPS - 1);
      row(
        `per step after the first, ${mode}${tree.name}`,
        s20.map((s, i) => later(s.ms, s1[i].ms)),
        "ms",
        {
          cpu: s20.map((s, i) => later(s.cpuMs, s1[i].cpuMs)),
          load: s20.map((s) => s.load),
          target: mode === "jail on" ? "≤ 6 ms + jail" : "≤ 6 ms",
          rerun: rerun("s20"),
          digits: 1,
        },
      );
    }
  }
  const s20 = get(`s20 ${jailModes[0][0]}`);
  if (s20.length > 0) {
    row(`peak RSS of S20, ${jailModes[0][0]}${tree.name}`, s20.map((s) => s.rssMb), "MiB", {
      load: s20.map((s) => s.load),
      target: "≤ 90 MiB",
      rerun: rerun("s20"),
      digits: 1,
    });
  }
  // As `deno task install` and the compiled binaries run it.
  proc(`S20, ${jailModes[0][0]}, ${SHIPPED_V8}`, `s20v8 ${jailModes[0][0]}`, "≤ 300 ms", "s20");
  const v8 = get(`s20v8 ${jailModes[0][0]}`);
  if (v8.length > 0) {
    row(
      `peak RSS of S20, ${jailModes[0][0]}, ${SHIPPED_V8}${tree.name}`,
      v8.map((s) => s.rssMb),
      "MiB",
      { load: v8.map((s) => s.load), target: "≤ 90 MiB", rerun: rerun("s20"), digits: 1 },
    );
  }
}

// ---- in-process and library figures ----
if (chosen.includes("stream")) {
  const here = new URL("./stream_bench.ts", import.meta.url).pathname;
  const rates: number[] = [];
  const perCpu: number[] = [];
  const loads: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 7); i++) {
    loads.push(loadAverage());
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", here, "--provider-case=text:200000:16384"],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("the provider stream case failed");
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    rates.push(r.deltasPerSecond / 1000);
    perCpu.push(r.deltasPerCpuSecond / 1000);
  }
  row("provider stream, 200,000 text deltas", rates, "k deltas/s", {
    cpu: perCpu,
    load: loads,
    target: "≥ 200 k/s",
    rerun: rerun("stream"),
  });
}

if (chosen.includes("mcp")) {
  const logs = await Deno.makeTempDir({ prefix: "mopac-bench-mcp-" });
  try {
    const five = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`s${i}`, fixtureStdio()]));
    await startTime(five, logs); // warm-up
    const times: number[] = [];
    const loads: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 7); i++) {
      loads.push(loadAverage());
      times.push(await startTime(five, logs));
    }
    row("five stdio MCP servers to all-ready", times, "ms", { load: loads, rerun: rerun("mcp") });
  } finally {
    await Deno.remove(logs, { recursive: true });
  }
}

if (chosen.includes("session")) {
  const root = await Deno.makeTempDir({ prefix: "mopac-bench-session-" });
  try {
    const load = [loadAverage()];
    const { full } = await loadFigures(`${root}/load`);
    row("session: open + load + repair, 10,000 messages", full, "ms", {
      load,
      target: "≤ 150 ms",
      rerun: rerun("session"),
    });
    const { cold } = await listFigures(`${root}/list`);
    row("session: `sessions list` over 5,000 sessions", cold, "ms", {
      load: [loadAverage()],
      target: "≤ 100 ms",
      rerun: rerun("session"),
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

// ---- the table ----
console.log(
  `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, ${RUNS} rounds after a ` +
    `warm-up; CPU = user + system of mopac and the children it waited for (${
      tool === "python3" ? "wait4 via python3" : "/usr/bin/time, 10 ms steps"
    }); load average ${f1(loadAtStart)} at start, ${f1(loadAverage())} at the end` +
    (JAIL ? "" : "; NO JAIL on this machine (bubblewrap missing): jail-on rows left out"),
);
const header: Row = {
  figure: "figure",
  median: "median",
  spread: "p10–p90",
  cpu: "CPU",
  target: "target",
  load: "load",
  rerun: "rerun",
};
const cols = Object.keys(header) as Array<keyof Row>;
const width = Object.fromEntries(
  cols.map((c) => [c, Math.max(...[header, ...rows].map((r) => r[c].length))]),
) as Record<keyof Row, number>;
for (const r of [header, ...rows]) {
  console.log(
    cols.map((c, i) => i === cols.length - 1 ? r[c] : r[c].padEnd(width[c])).join("  "),
  );
}
