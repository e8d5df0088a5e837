/**
 * What the OS jail adds to a `bash` tool call, and what the other designs would.
 *   deno run -A tests/bench/jail_bench.ts [--runs 100]   (also: deno task bench jail)
 * For `true` through the bash tool (parse + run, as the runner calls it), median and
 * p90 over `runs` calls after a warm-up, interleaved so machine noise hits all alike:
 *   unjailed         --sandbox off: bash as mopac's child
 *   jail, none       the session's jail (bwrap + supervisor), network none
 *   jail, hosts      the same with bash.network.hosts (proxy, host and jail socat)
 * once per run: the preflight probe; and once per session: the jail's start (at the
 * first call, probe excluded) in both modes. For the
 * decision "one jail per session or a jail per call": the bare cost of starting
 *   bwrap per call             the same bwrap arguments, `bash -c true` inside
 *   nsenter + bwrap per call   a per-call jail joining a per-session network
 *                              namespace (what a per-call design needs so a dev
 *                              server stays reachable from the next call)
 */
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import { JailLauncher } from "../../src/jail/launcher.ts";
import { directLauncher } from "../../src/jail/direct.ts";
import { bwrapArgs } from "../../src/jail/bwrap.ts";
import { buildPlan, surveyRequest } from "../../src/jail/plan.ts";
import { probeLinux } from "../../src/jail/probe.ts";
import type { NetworkPolicy, ShellLauncher } from "../../src/jail/types.ts";
import { testToolContext } from "../_support/tool_context.ts";
import { runsFrom } from "./_runs.ts";

const runs = runsFrom(Deno.args, "jail_bench", 100);
const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-jail-bench-" }));
const ctx = testToolContext(ws, { session_id: "bench", shellCwd: "" });
const plan = (network: NetworkPolicy) => ({
  workspace: ws,
  denyGlobs: [],
  denied: () => false,
  dataDir: `${ws}/.mopac`,
  hide: [],
  network,
});

function toolFor(launcher: ShellLauncher) {
  const jobs = new JobManager();
  const tool = createBashTool({ jobs, launcher });
  return async () => {
    const input = tool.parse({ command: "true" });
    await tool.access!(input, ctx);
    const out = await tool.run(input, ctx);
    if (out.is_error) throw new Error(out.content);
  };
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const none = new JailLauncher({ backend: "bwrap", plan: plan({ mode: "none" }), log: () => {} });
const hosts = new JailLauncher({
  backend: "bwrap",
  plan: plan({ mode: "hosts", hosts: ["registry.npmjs.org"] }),
  log: () => {},
});
const variants: Array<[string, () => Promise<void>]> = [
  ["unjailed", toolFor(directLauncher)],
  ["jail, none", toolFor(none)],
  ["jail, hosts", toolFor(hosts)],
];
// The preflight probe (one bwrap start with the survey of HOME), as every run with bash pays it.
const probes: number[] = [];
for (let i = 0; i < 20; i++) {
  probes.push(
    await timed(async () =>
      void await probeLinux({ mode: "none" }, surveyRequest(Deno.env.get("HOME"), []))
    ),
  );
}
// The first call of a jailed tool starts its jail.
const startNone = await timed(variants[1][1]);
const startHosts = await timed(variants[2][1]);

// The per-call designs, with the same mounts the session jail uses.
const args = bwrapArgs(await buildPlan(plan({ mode: "none" })));
const perCall = async () => {
  await new Deno.Command("bwrap", { args: [...args, "--", "bash", "-c", "true"] }).output();
};
variants.push(["bwrap per call", perCall]);
const holder = new Deno.Command("unshare", {
  args: ["--user", "--map-root-user", "--net", "--", "sleep", "3600"],
  stdout: "null",
  stderr: "null",
}).spawn();
// Ready once unshare has set up the namespaces (uid map included) and run `sleep`.
for (let i = 0; i < 500; i++) {
  const comm = (() => {
    try {
      return Deno.readTextFileSync(`/proc/${holder.pid}/comm`).trim();
    } catch {
      return "";
    }
  })();
  if (comm === "sleep") break;
  await new Promise((r) => setTimeout(r, 10));
}
const shared = async () => {
  const out = await new Deno.Command("nsenter", {
    args: [
      "-t",
      String(holder.pid),
      "-U",
      "-n",
      "--preserve-credentials",
      "--",
      "bwrap",
      ...args.flatMap((a) => (a === "--unshare-all" ? [a, "--share-net"] : [a])),
      "--",
      "bash",
      "-c",
      "true",
    ],
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
};
let sharedOk = true;
try {
  await shared();
  variants.push(["nsenter + bwrap per call", shared]);
} catch (err) {
  sharedOk = false;
  console.log(`  (nsenter + bwrap per call not measured: ${(err as Error).message.trim()})`);
}

const times = new Map<string, number[]>(variants.map(([n]) => [n, []]));
for (const [, fn] of variants) for (let i = 0; i < 10; i++) await fn();
for (let i = 0; i < runs; i++) {
  for (const [name, fn] of variants) times.get(name)!.push(await timed(fn));
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(
  `bash tool call of \`true\`, ${runs} runs each, interleaved (Deno ${Deno.version.deno})`,
);
for (const [name, xs] of times) {
  console.log(`  ${name.padEnd(26)} median ${fmt(pct(xs, 0.5))}  p90 ${fmt(pct(xs, 0.9))}`);
}
const med = (name: string) => pct(times.get(name)!, 0.5);
console.log(`  added per call, none  ${fmt(med("jail, none") - med("unjailed"))}`);
console.log(`  added per call, hosts ${fmt(med("jail, hosts") - med("unjailed"))}`);
console.log(`  preflight probe (per run)      median ${fmt(pct(probes, 0.5))} of 20`);
console.log(`  jail start (first call), none  ${fmt(startNone)}`);
console.log(`  jail start (first call), hosts ${fmt(startHosts)}`);
if (sharedOk) {
  console.log(
    `  a per-call jail would add ${fmt(med("bwrap per call") - med("unjailed"))} ` +
      `(${fmt(med("nsenter + bwrap per call") - med("unjailed"))} with a shared network namespace)`,
  );
}

holder.kill("SIGKILL");
await holder.status;
await none.dispose();
await hosts.dispose();
await Deno.remove(ws, { recursive: true });
