/**
 * `mopac --version`: mopac's version and the commit it runs from, then the Deno that
 * runs it. The commit is read from the git checkout mopac's own files are in (a clone,
 * or a worktree of one), only where Deno already lets mopac read it: `--version` never
 * asks for a permission. Elsewhere (a bundle, a compiled binary, no read access) it is
 * "unknown".
 */
import { VERSION } from "../util/version.ts";

export async function versionText(): Promise<string> {
  const commit = await commitOf(new URL("../../", import.meta.url)) ?? "unknown";
  const { deno, v8, typescript } = Deno.version;
  return `mopac ${VERSION} (commit ${commit})\n` +
    `deno ${deno} (v8 ${v8}, typescript ${typescript})\n`;
}

/** The commit HEAD names in the checkout at `root` (a file: URL); undefined when unknown. */
export async function commitOf(root: URL): Promise<string | undefined> {
  if (root.protocol !== "file:") return undefined;
  try {
    let gitDir = new URL(".git/", root);
    const dotGit = await read(new URL(".git", root));
    if (dotGit === undefined) return undefined;
    // A worktree's .git is a file naming its git dir; a clone's is the dir (read fails).
    const pointer = /^gitdir: (.+)$/m.exec(dotGit ?? "")?.[1]?.trim();
    if (pointer) gitDir = new URL(pointer.endsWith("/") ? pointer : `${pointer}/`, root);
    const head = (await read(new URL("HEAD", gitDir)))?.trim();
    if (!head) return undefined;
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref) return sha(head);
    // Branch refs live in the common dir of a worktree; packed ones in packed-refs.
    const common = (await read(new URL("commondir", gitDir)))?.trim();
    const commonDir = common
      ? new URL(common.endsWith("/") ? common : `${common}/`, gitDir)
      : gitDir;
    for (const dir of [gitDir, commonDir]) {
      const loose = sha((await read(new URL(ref, dir)))?.trim());
      if (loose) return loose;
    }
    const packed = await read(new URL("packed-refs", commonDir));
    const line = packed?.split("\n").find((l) => l.endsWith(` ${ref}`));
    return sha(line?.split(" ")[0]);
  } catch {
    return undefined;
  }
}

function sha(text: string | undefined): string | undefined {
  return text && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text.slice(0, 12) : undefined;
}

/**
 * The file's text; "" for a directory; undefined when it is missing or Deno has not
 * already granted reading it (querying never prompts).
 */
async function read(url: URL): Promise<string | undefined> {
  const path = decodeURIComponent(url.pathname);
  if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return undefined;
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.IsADirectory) return "";
    return undefined;
  }
}
