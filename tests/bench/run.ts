/**
 * `deno task bench`: runs every tests/bench/*_bench.ts in turn (or the ones named),
 * each as its own `deno run -A` process so one benchmark's memory and timers cannot
 * skew the next, and prints their figures as they come. summary_bench.ts runs last:
 * its table (issue 18's figures, each with the command that reruns it) ends the output.
 *
 *   deno task bench                      every benchmark
 *   deno task bench startup mcp          startup_bench.ts and mcp_bench.ts
 *   deno task bench startup -- --runs 5  arguments after `--` go to each benchmark
 *   deno task bench -- --runs 3          every benchmark takes `--runs N` (how often it
 *                                        repeats its measurement; tests/bench/_runs.ts)
 *   deno task bench summary              the summary table alone
 *
 * Exits 1 when a benchmark failed, 2 for an unknown name.
 */
const here = new URL(".", import.meta.url).pathname;

const dashes = Deno.args.indexOf("--");
const names = dashes >= 0 ? Deno.args.slice(0, dashes) : Deno.args;
const passArgs = dashes >= 0 ? Deno.args.slice(dashes + 1) : [];

const available = [...Deno.readDirSync(here)]
  .filter((e) => e.isFile && e.name.endsWith("_bench.ts"))
  .map((e) => e.name)
  .sort();

/** `startup`, `startup_bench` and `startup_bench.ts` all name startup_bench.ts. */
function fileFor(name: string): string | undefined {
  const base = name.replace(/^.*\//, "").replace(/\.ts$/, "").replace(/_bench$/, "");
  return available.find((f) => f === `${base}_bench.ts`);
}

const chosen: string[] = [];
for (const name of names) {
  const file = fileFor(name);
  if (!file) {
    const known = available.map((f) => f.replace(/_bench\.ts$/, "")).join(", ");
    console.error(`bench: no benchmark "${name}" (known: ${known})`);
    Deno.exit(2);
  }
  if (!chosen.includes(file)) chosen.push(file);
}
const SUMMARY = "summary_bench.ts";
const files = chosen.length > 0
  ? chosen
  : [...available.filter((f) => f !== SUMMARY), ...available.filter((f) => f === SUMMARY)];

const failed: string[] = [];
for (const file of files) {
  console.log(`\n== ${file}${passArgs.length ? ` ${passArgs.join(" ")}` : ""}`);
  const t0 = performance.now();
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${here}${file}`, ...passArgs],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  if (status.success) {
    console.log(`-- ${file}: done in ${secs} s`);
  } else {
    console.log(`-- ${file}: FAILED (exit ${status.code}) after ${secs} s`);
    failed.push(file);
  }
}

console.log(
  `\n${files.length - failed.length} of ${files.length} benchmarks ran` +
    (failed.length ? `; failed: ${failed.join(", ")}` : ""),
);
Deno.exit(failed.length > 0 ? 1 : 0);
