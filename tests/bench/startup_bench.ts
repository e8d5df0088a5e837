/**
 * Startup figures of issue 2 (printed, not asserted): wall time (median, min, max over
 * N runs, after one warm-up) and peak RSS of `mopac --version`, `mopac --help` and a
 * one-request `mopac run` against the fake server, each a `deno run main.ts` under
 * narrow flags. Two references frame them: an empty Deno script (the runtime's floor)
 * and a script that only imports src/app/run.ts (what `--version` would pay if it
 * loaded the run path: openai, the MCP SDK, zod, …).
 * It also checks that `--version` and `--help` load no npm package: from the static
 * graph of main.ts (`deno info --json`, dynamic imports left out) and from the modules
 * Deno actually evaluates (DENO_LOG=debug lists each one).
 * Wall time, CPU and peak RSS come from tests/bench/_process.ts (wait4's rusage).
 * Run: deno run --allow-all tests/bench/startup_bench.ts [--runs 10]
 */
import { parseArgs } from "node:util";

// Probe mode: load the whole run path without running anything (see the header).
// Only node:util is imported statically, so the probe pays for nothing else.
if (Deno.args[0] === "--probe-run-path") {
  await import("../../src/app/run.ts");
  Deno.exit(0);
}

const { cleanDenoEnv, denoFlags, MAIN } = await import("../_support/run_mopac.ts");
const { scriptText } = await import("../_support/fake_openai.ts");
const { FAKE_ENV, workspace } = await import("../_support/workspace.ts");
const { measureProcess, measuringTool, median } = await import("./_process.ts");
type ProcessSample = import("./_process.ts").ProcessSample;

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "10" } },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error("--runs must be a positive integer");
  Deno.exit(2);
}

interface Case {
  label: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

const decoder = new TextDecoder();
const tmp = await Deno.makeTempDir({ prefix: "mopac-bench-" });
const baseEnv = cleanDenoEnv();

/** One run of `deno <args>`: its wall time and peak RSS, measured by _process.ts. */
async function runOnce(c: Case): Promise<ProcessSample> {
  const sample = await measureProcess({
    cmd: [Deno.execPath(), ...c.args],
    cwd: c.cwd,
    env: { ...baseEnv, ...c.env },
  });
  if (sample.code !== 0) {
    throw new Error(`${c.label} exited ${sample.code}: ${sample.stderr.slice(0, 500)}`);
  }
  return sample;
}

async function measure(c: Case): Promise<void> {
  await runOnce(c); // warm-up: V8 code cache, npm resolution snapshot
  const samples: ProcessSample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await runOnce(c));
  const ms = samples.map((s) => s.ms);
  const rss = samples.map((s) => s.rssMb);
  console.log(
    `${c.label.padEnd(42)} ${median(ms).toFixed(0).padStart(5)} ms  ` +
      `(min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)})  ` +
      `peak RSS ${median(rss).toFixed(1)} MB (max ${Math.max(...rss).toFixed(1)})`,
  );
}

/** npm packages in the static import graph of main.ts (dynamic imports left out). */
async function staticGraph(): Promise<{ modules: number; npm: string[] }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", MAIN],
    env: baseEnv,
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno info failed: ${decoder.decode(out.stderr)}`);
  type Dep = { code?: { specifier: string }; isDynamic?: boolean };
  const info = JSON.parse(decoder.decode(out.stdout)) as {
    roots: string[];
    modules: Array<{ specifier: string; dependencies?: Dep[] }>;
    redirects: Record<string, string>;
  };
  const bySpec = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...info.roots];
  while (stack.length > 0) {
    const raw = stack.pop()!;
    const spec = info.redirects[raw] ?? raw;
    if (seen.has(spec)) continue;
    seen.add(spec);
    for (const dep of bySpec.get(spec)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) stack.push(dep.code.specifier);
    }
  }
  return { modules: seen.size, npm: [...seen].filter((s) => s.startsWith("npm:")) };
}

/** The modules Deno evaluates for `mopac <args>`, from its debug log. */
async function evaluated(args: string[], cwd: string, env = {}): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    clearEnv: true,
    env: { ...baseEnv, ...env, DENO_LOG: "debug" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const log = decoder.decode(out.stderr);
  const found = [...log.matchAll(/module: (file:\/\/[^,\s]+)/g)].map((m) => m[1]);
  return [...new Set(found)];
}

const ws = await workspace({ turns: () => scriptText("ok") });
try {
  await Deno.writeTextFile(`${tmp}/empty.ts`, "");
  const mopac = (...args: string[]) => ["run", ...denoFlags({}), MAIN, ...args];
  const runArgs = ["run", ...denoFlags(ws.perms), MAIN, "run", "-o", "json", "say ok"];
  console.log(
    `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, ${RUNS} runs each ` +
      `after a warm-up; peak RSS from ${await measuringTool()}`,
  );
  await measure({ label: "empty Deno script (floor)", args: ["run", `${tmp}/empty.ts`], cwd: tmp });
  await measure({
    label: "import src/app/run.ts only (SDKs loaded)",
    args: ["run", "-A", new URL(import.meta.url).pathname, "--probe-run-path"],
    cwd: tmp,
  });
  await measure({ label: "mopac --version", args: mopac("--version"), cwd: ws.dir });
  await measure({ label: "mopac --help", args: mopac("--help"), cwd: ws.dir });
  await measure({
    label: "mopac run (one request, fake server)",
    args: runArgs,
    cwd: ws.dir,
    env: FAKE_ENV,
  });

  const graph = await staticGraph();
  console.log(
    `static import graph of main.ts: ${graph.modules} modules, npm packages: ${
      graph.npm.length ? graph.npm.join(", ") : "none"
    }`,
  );
  for (const flag of ["--version", "--help"]) {
    const mods = await evaluated(mopac(flag), ws.dir);
    const npm = mods.filter((m) => m.includes("/npm/"));
    console.log(
      `mopac ${flag} evaluates ${mods.length} modules, ${npm.length} from npm` +
        (npm.length ? `: ${npm.slice(0, 5).join(", ")}` : ""),
    );
  }
  const runMods = await evaluated(runArgs, ws.dir, FAKE_ENV);
  const runNpm = runMods.filter((m) => m.includes("/npm/"));
  console.log(`mopac run evaluates ${runMods.length} modules, ${runNpm.length} from npm`);
} finally {
  await ws.close();
  await Deno.remove(tmp, { recursive: true });
}
