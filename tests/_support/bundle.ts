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
  const config = JSON.parse(await Deno.readTextFile(`${REPO}deno.json`));
  const task = String(config.tasks?.build ?? "");
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
  const tasks: Record<string, string> =
    JSON.parse(await Deno.readTextFile(`${REPO}deno.json`)).tasks ?? {};
  const flag = (task: string) => task.split(/\s+/).find((w) => w.startsWith("--v8-flags="));
  const found = flag(tasks.install ?? "");
  if (!found) throw new Error("deno.json's install task gives no --v8-flags");
  return found;
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

/** The chunks of a build whose text contains `marker` (which chunk holds a package). */
export async function chunksWith(outdir: string, marker: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(outdir)) {
    if (!e.isFile || !e.name.endsWith(".js")) continue;
    if ((await Deno.readTextFile(`${outdir}/${e.name}`)).includes(marker)) {
      found.push(`${outdir}/${e.name}`);
    }
  }
  return found.sort();
}
