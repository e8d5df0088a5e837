/**
 * One walk of the workspace before the jail starts, for what bind mounts must
 * express: files and folders `paths.deny` matches (hidden), Unix sockets (hidden:
 * a read-only bind does not stop `connect()`), and every git folder (its hooks and
 * config stay read-only, or a command could plant code the operator's next git
 * command runs). It never follows links and does not enter `node_modules`, git
 * internals or mopac's data dir; it stops after LIMIT entries and says so.
 */
import { join } from "node:path";

export interface ScanResult {
  denyFiles: string[];
  denyDirs: string[];
  sockets: string[];
  /** `.git` folders (the repository's and nested ones). */
  gitDirs: string[];
  /** Links that `paths.deny` matches, with what they point at when it could be read. */
  denyLinks: Array<{ path: string; target?: Deno.FileInfo & { real: string } }>;
  /** Set when the walk stopped early. */
  truncated: boolean;
}

const LIMIT = 200_000;
const SKIP = new Set(["node_modules"]);

export async function scanWorkspace(
  root: string,
  denied: (path: string) => boolean,
  opts: { skip?: readonly string[]; limit?: number } = {},
): Promise<ScanResult> {
  const limit = opts.limit ?? LIMIT;
  const skipPaths = new Set(opts.skip ?? []);
  const out: ScanResult = {
    denyFiles: [],
    denyDirs: [],
    sockets: [],
    gitDirs: [],
    denyLinks: [],
    truncated: false,
  };
  const queue = [root];
  let seen = 0;
  for (let head = 0; head < queue.length; head++) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(queue[head]));
    } catch {
      continue; // unreadable (or gone): bwrap shows it as it is
    }
    for (const e of entries) {
      if (++seen > limit) {
        out.truncated = true;
        return out;
      }
      const path = join(queue[head], e.name);
      if (e.name === ".git") {
        if (e.isDirectory) out.gitDirs.push(path);
        continue;
      }
      if (e.isSymlink) {
        if (denied(path)) out.denyLinks.push({ path, target: await resolved(path) });
        continue;
      }
      if (e.isDirectory) {
        if (denied(path)) out.denyDirs.push(path);
        else if (!SKIP.has(e.name) && !skipPaths.has(path)) queue.push(path);
        continue;
      }
      if (e.isFile) {
        if (denied(path)) out.denyFiles.push(path);
        continue;
      }
      // Neither file, folder nor link: a socket, FIFO or device.
      const info = await Deno.lstat(path).catch(() => undefined);
      if (info?.isSocket) out.sockets.push(path);
      else if (denied(path)) out.denyFiles.push(path);
    }
  }
  return out;
}

async function resolved(path: string): Promise<(Deno.FileInfo & { real: string }) | undefined> {
  try {
    const real = await Deno.realPath(path);
    return { ...(await Deno.stat(real)), real };
  } catch {
    return undefined;
  }
}
