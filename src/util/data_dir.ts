/**
 * Creating a data dir. mopac writes into repositories it did not make, so a data dir
 * it creates carries a `.gitignore` that ignores everything in it: sessions, logs and
 * the index never show up in `git status` or slip into a commit. A folder that exists
 * already is left as it is (it may be one the user chose and keeps other things in).
 */
import { dirname } from "node:path";

/** What mopac writes into a data dir it creates. */
export const DATA_DIR_GITIGNORE =
  "# Created by mopac: sessions, logs and the index stay local.\n*\n";

/**
 * Makes sure `dir` exists; when this call creates it, writes `<dir>/.gitignore` too.
 * Safe when several processes create the same dir at once: only the one whose mkdir
 * succeeded writes the file.
 */
export async function ensureDataDir(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return;
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    await Deno.mkdir(dirname(dir), { recursive: true });
    try {
      await Deno.mkdir(dir);
    } catch (again) {
      if (again instanceof Deno.errors.AlreadyExists) return;
      throw again;
    }
  }
  await Deno.writeTextFile(`${dir}/.gitignore`, DATA_DIR_GITIGNORE, { createNew: true });
}

/** True when `dir` exists (a folder we may look at). */
export async function dataDirExists(dir: string): Promise<boolean> {
  try {
    return (await Deno.stat(dir)).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
