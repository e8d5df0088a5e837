/**
 * Builds mopac the way `deno task build` does (deno.json's own command, so the test
 * and the bench cannot drift from it), into a folder of the caller's: `main.js` plus
 * the chunks that load at first use; and reads the V8 flags the shipped forms carry.
 */
import { REPO } from "./run_mopac.ts";

/**
 * The `build` task's `deno bundle` command (what follows its clearing of the old
 * output), as arguments after `deno`, its `--outdir` replaced by `outdir`.
 */
export async function buildArgs(outdir: string): Promise<string[]> {
  const task = (await denoTasks()).build ?? "";
  const words = task.split("&&").at(-1)!.split(/\s+/).filter((w) => w !== "");
  const at = words.indexOf("--outdir");
  if (words[0] !== "deno" || at < 0 || at + 1 >= words.length) {
    throw new Error(`deno.json's build task is not "deno bundle … --outdir DIR …": ${task}`);
  }
  words[at + 1] = outdir;
  return words.slice(1);
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

/** Runs the build into `outdir` and returns the path of its entry, `main.js`. */
export async function buildBundle(outdir: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: await buildArgs(outdir),
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno task build failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return `${outdir}/main.js`;
}

/** Every chunk of a build (main.js included), with its text, in name order. */
export async function chunks(outdir: string): Promise<Array<{ path: string; text: string }>> {
  const names = [...Deno.readDirSync(outdir)]
    .filter((e) => e.isFile && e.name.endsWith(".js")).map((e) => e.name).sort();
  return await Promise.all(names.map(async (name) => {
    const path = `${outdir}/${name}`;
    return { path, text: await Deno.readTextFile(path) };
  }));
}

/** The chunks of a build whose text contains `marker` (which chunk holds a package). */
export async function chunksWith(outdir: string, marker: string): Promise<string[]> {
  return (await chunks(outdir)).filter((c) => c.text.includes(marker)).map((c) => c.path);
}
