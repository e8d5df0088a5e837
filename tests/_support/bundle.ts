/**
 * Builds mopac the way `deno task build` does (deno.json's own command, so the test
 * and the bench cannot drift from it), into a folder of the caller's: `main.js` plus
 * the chunks that load at first use; and reads the V8 flags the shipped forms carry.
 */
import { REPO } from "./run_mopac.ts";

/**
 * The `build` task's commands after its clearing of the old output (`deno bundle`,
 * then the steps that finish its output), each as arguments after `deno`, with the
 * task's `dist/bundle` replaced by `outdir` wherever it appears.
 */
export async function buildCommands(outdir: string): Promise<string[][]> {
  const task = (await denoTasks()).build ?? "";
  const commands = task.split("&&").map((c) => c.trim().split(/\s+/))
    .filter((words) => words[0] === "deno")
    .map((words) => words.slice(1).map((w) => w.replaceAll("dist/bundle", outdir)));
  const bundle = commands[0];
  if (bundle?.[0] !== "bundle" || !bundle.includes("--outdir") || !bundle.includes(outdir)) {
    throw new Error(
      `deno.json's build task is not "… deno bundle … --outdir dist/bundle …": ${task}`,
    );
  }
  return commands;
}

/**
 * The `--v8-flags=…` that `deno task install` and every compile task give mopac (they
 * must agree: tests/build/compile_test.ts), so a bench can run mopac as those do.
 */
export async function shippedV8Flags(): Promise<string> {
  const [found] = v8FlagsOf((await denoTasks()).install ?? "");
  if (!found) throw new Error("deno.json's install task gives no --v8-flags");
  return found;
}

/** The `--v8-flags=…` words of one task's command. */
export function v8FlagsOf(task: string): string[] {
  return task.split(/\s+/).filter((w) => w.startsWith("--v8-flags="));
}

/** deno.json's tasks, by name. */
export async function denoTasks(): Promise<Record<string, string>> {
  return JSON.parse(await Deno.readTextFile(`${REPO}deno.json`)).tasks ?? {};
}

/**
 * Runs the build into `outdir` and returns the path of its entry, `main.js`. With
 * `sourceMaps`, each chunk also gets a `.map` beside it (`--sourcemap=external`, which
 * leaves the code as it is): the build is minified, so the maps are what say which
 * modules a chunk holds.
 */
export async function buildBundle(
  outdir: string,
  opts: { sourceMaps?: boolean } = {},
): Promise<string> {
  const [bundle, ...finish] = await buildCommands(outdir);
  if (opts.sourceMaps) bundle.push("--sourcemap=external");
  for (const args of [bundle, ...finish]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `deno task build failed at deno ${args[0]}: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
  }
  return `${outdir}/main.js`;
}

export interface Chunk {
  path: string;
  text: string;
  /** The modules bundled into it, from its source map (empty without maps). */
  sources: string[];
}

/** Every chunk of a build (main.js included), in name order. */
export async function chunks(outdir: string): Promise<Chunk[]> {
  const names = [...Deno.readDirSync(outdir)]
    .filter((e) => e.isFile && e.name.endsWith(".js")).map((e) => e.name).sort();
  return await Promise.all(names.map(async (name) => {
    const path = `${outdir}/${name}`;
    const map = await Deno.readTextFile(`${path}.map`).catch(() => undefined);
    const sources: string[] = map === undefined ? [] : JSON.parse(map).sources ?? [];
    return { path, text: await Deno.readTextFile(path), sources };
  }));
}

/**
 * The chunks of a build that hold a module whose path contains `marker` (which chunk
 * holds a package). Needs a build with source maps: without, it throws rather than
 * find nothing.
 */
export async function chunksWith(outdir: string, marker: string): Promise<string[]> {
  const all = await chunks(outdir);
  if (all.every((c) => c.sources.length === 0)) {
    throw new Error(`no source maps in ${outdir}: build it with { sourceMaps: true }`);
  }
  return all.filter((c) => c.sources.some((s) => s.includes(marker))).map((c) => c.path);
}
