/**
 * The module graph of every process a test starts, in Deno's cache before any test
 * runs: main.ts, the MCP fixture servers, the helper scripts and the npm servers,
 * each resolved through deno.json's import map and deno.lock. Those processes then load
 * from the cache and never download while a start-up timer runs, whatever the
 * machine's cache held before.
 *
 * `deno task test` runs this file first (`deno task warm`) and sets MOPAC_TEST_DEPS_WARM
 * for the test run. A test file run on its own (`deno test -A tests/e2e/gate_test.ts`)
 * warms here instead, when a support module that starts processes imports this one.
 *
 * Every `.ts`/`.mjs` file under tests/ is an entry point, so a new helper script is
 * covered without a list to keep. `deno install` alone is not enough: it fetches the
 * packages but not what Deno records per graph, and a first `deno run` of a graph
 * would still go to the registry.
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * How tests start Deno programs: from the cache only. A module the warm-up missed then
 * fails the test at once, instead of a download racing a timer (or going to the
 * registry in the background, as Deno otherwise does for packages whose metadata the
 * lock file made unnecessary).
 */
export const DENO_RUN = ["run", "--cached-only"] as const;

/**
 * The cache those programs load from. A server started by mopac gets a clean
 * environment, and a test that moves HOME would move Deno's default cache with it:
 * server configs name the cache outright.
 */
/**
 * The start deadline (an MCP server's `start_timeout`, seconds) of every server a test
 * starts: a Deno process loading the MCP SDK, or an npm server's package graph, can
 * take many seconds on a shared 2-core machine under a full parallel test run. A
 * server that fails to start still fails at once; tests of one that never answers
 * set their own, short deadline.
 */
export const START_TIMEOUT_S = 120;

export function denoDir(): string {
  // A function: the warm-up runs this module without env access.
  return Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
}
const CONFIG = join(REPO, "deno.json");
const SKIP = new Set(["fixtures", "node_modules"]);

function* scripts(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory && !SKIP.has(e.name)) yield* scripts(path);
    else if (e.isFile && /\.(ts|mjs)$/.test(e.name)) yield path;
  }
}

/** main.ts, every script under tests/, and the npm servers deno.json pins for tests. */
export function entryPoints(): string[] {
  const imports = JSON.parse(Deno.readTextFileSync(CONFIG)).imports as Record<string, string>;
  return [
    "main.ts",
    ...[...scripts(join(REPO, "tests"))].map((p) => relative(REPO, p)).sort(),
    imports["@modelcontextprotocol/server-everything"],
    imports["@modelcontextprotocol/server-filesystem"],
  ];
}

async function deno(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr);
    throw new Error(`deno ${args.slice(0, 2).join(" ")} failed while warming the cache:\n${why}`);
  }
}

/** `deno install` then `deno cache` of every entry point, both frozen to deno.lock. */
export async function warmDeps(): Promise<void> {
  await deno(["install", "--frozen", "--config", CONFIG]);
  await deno(["cache", "--frozen", "--config", CONFIG, ...entryPoints()]);
}

if (import.meta.main) {
  const started = performance.now();
  await warmDeps();
  const n = entryPoints().length;
  console.error(`warm: ${n} entry points cached in ${Math.round(performance.now() - started)} ms`);
} else if (Deno.env.get("MOPAC_TEST_DEPS_WARM") !== "1") {
  await warmDeps();
}
