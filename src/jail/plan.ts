/**
 * What a session's jail allows, as concrete paths: the profile's rules (write
 * globs, `paths.deny`) turned into mounts, plus what mopac itself protects:
 *  - its data dir is read-only (session files, locks, the index, its config), with
 *    the package cache folder inside it writable again;
 *  - every git folder's hooks and config are read-only;
 *  - operator config files (they may hold keys), well-known credential stores in
 *    HOME and every Unix socket found in the workspace and HOME are hidden.
 * Mounts cannot express globs: a write glob grants its folder (the part before the
 * first wildcard), and deny globs are applied to what exists when the jail starts.
 */
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { SurveyResult } from "./survey.ts";
import type { JailPlan, Mount, NetworkPolicy } from "./types.ts";
import { scanWorkspace } from "./workspace_scan.ts";
import { ensureDataDir } from "../util/data_dir.ts";

export interface PlanInput {
  workspace: string;
  /** The profile's `paths.write`; absent means the workspace. */
  writeGlobs?: readonly string[];
  /** `--add-dir` folders (real paths): writable besides, and scanned like, the workspace. */
  addDirs?: readonly string[];
  /** The profile's `paths.deny`, for absolute globs outside the workspace. */
  denyGlobs: readonly string[];
  /** The gate's own test of an absolute path against `paths.deny`. */
  denied: (path: string) => boolean;
  dataDir: string;
  /** Files to hide whatever the profile says (operator config files). */
  hide: readonly string[];
  network: NetworkPolicy;
  home?: string;
  /** Keep package caches in the data dir between runs (false for --ephemeral runs). */
  persistCache?: boolean;
  /** What the probe found outside the workspace (Linux); absent: nothing known. */
  survey?: SurveyResult;
}

/** Credential stores under HOME that no command needs to read. */
export const HOME_SECRETS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".config/gh",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".config/mopac",
  ".local/share/mopac",
];

/** Folders outside HOME with the same standing. */
export const SYSTEM_SECRETS = ["/etc/mopac"];

/** At most this many hidden paths: more means a rule that should be a folder. */
const MAX_HIDDEN = 4096;

export function cacheDirOf(dataDir: string): string {
  return join(dataDir, "cache");
}

/** Where proxies of jails put their Unix sockets. */
export function runDirOf(dataDir: string): string {
  return join(dataDir, "run");
}

export async function buildPlan(input: PlanInput): Promise<JailPlan> {
  const ws = input.workspace;
  const notes: string[] = [];
  const mounts: Mount[] = [];
  const cacheDir = input.persistCache === false ? undefined : cacheDirOf(input.dataDir);
  if (cacheDir) {
    // A data dir made here (a jailed MCP server before any session) gets its .gitignore.
    await ensureDataDir(input.dataDir);
    await Deno.mkdir(cacheDir, { recursive: true });
  }

  const writable = input.writeGlobs ? writeRoots(input.writeGlobs, ws) : [ws];
  if (input.writeGlobs && writable.includes(ws)) {
    notes.push("a paths.write glob starts with a wildcard: commands may write the whole workspace");
  }
  const under = (p: string) => writable.some((w) => p === w || p.startsWith(w + sep));
  const added = (input.addDirs ?? []).filter((d) => !under(d));
  writable.push(...added);
  for (const path of writable) mounts.push({ kind: "write", path });

  const scan = await scanWorkspace(ws, input.denied, { skip: [input.dataDir] });
  // An added folder hides what paths.deny matches and its sockets like the workspace does.
  for (const dir of added) {
    const more = await scanWorkspace(dir, input.denied, { skip: [input.dataDir] });
    scan.denyFiles.push(...more.denyFiles);
    scan.denyDirs.push(...more.denyDirs);
    scan.sockets.push(...more.sockets);
    scan.gitDirs.push(...more.gitDirs);
    scan.denyLinks.push(...more.denyLinks);
    scan.truncated ||= more.truncated;
  }
  if (scan.truncated) {
    notes.push("the workspace is too large to scan whole; deny rules apply to what was scanned");
  }
  if (under(input.dataDir)) mounts.push({ kind: "read-only", path: input.dataDir });
  // A git worktree's repository lives elsewhere: writable (commits), hooks and config not.
  const common = await worktreeRepository(ws);
  if (common && !under(common)) {
    mounts.splice(writable.length, 0, { kind: "write", path: common });
    scan.gitDirs.push(common);
  }
  for (const git of scan.gitDirs) {
    mounts.push({ kind: "read-only", path: join(git, "hooks") });
    mounts.push({ kind: "read-only", path: join(git, "config") });
  }
  if (cacheDir) mounts.push({ kind: "write", path: cacheDir });

  const hidden = new Map<string, "hide-file" | "hide-dir">();
  // Proxy sockets of every run using this data dir: a jail reaches only its own.
  const sockets = runDirOf(input.dataDir);
  if (await exists(sockets)) hidden.set(sockets, "hide-dir");
  for (const f of [...scan.denyFiles, ...scan.sockets]) hidden.set(f, "hide-file");
  for (const d of scan.denyDirs) hidden.set(d, "hide-dir");
  for (const link of scan.denyLinks) {
    if (link.target) {
      hidden.set(link.target.real, link.target.isDirectory ? "hide-dir" : "hide-file");
    } else notes.push(`paths.deny matches the link ${link.path}, whose target mopac cannot read`);
  }
  const secrets = new Set(surveyRequest(input.home, []).paths);
  for (const [path, kind] of input.survey?.kinds ?? []) {
    if (kind === "socket") hidden.set(path, "hide-file");
    else if (kind !== "link" && (secrets.has(path) || input.denied(path))) {
      hidden.set(path, kind === "dir" ? "hide-dir" : "hide-file");
    }
  }
  for (const file of input.hide) if (await exists(file)) hidden.set(file, "hide-file");
  if (hidden.size > MAX_HIDDEN) {
    throw new Error(
      `paths.deny hides ${hidden.size} paths in the jail (at most ${MAX_HIDDEN}); ` +
        "deny their folders instead of the files",
    );
  }
  // Folders first, so a file inside a hidden folder is not mounted over in vain.
  const sorted = [...hidden].sort(([a, ka], [b, kb]) =>
    ka === kb ? a.localeCompare(b) : ka === "hide-dir" ? -1 : 1
  );
  for (const [path, kind] of sorted) {
    if (!insideHiddenDir(path, hidden)) mounts.push({ kind, path });
  }
  return { workspace: ws, mounts, network: input.network, cacheDir, notes };
}

/** What the probe should look at outside the workspace (see survey.ts). */
export function surveyRequest(home: string | undefined, denyGlobs: readonly string[]) {
  const paths = [...SYSTEM_SECRETS];
  if (home) paths.push(...HOME_SECRETS.map((p) => join(home, p)));
  const walk = denyGlobs.filter((g) => isAbsolute(g)).map((g) => ({
    dir: staticPrefix(g),
    depth: 4,
  })).filter((w) => w.dir !== "/");
  const sockets = home ? [{ dir: home, depth: 4 }] : [];
  return { paths, walk, sockets };
}

/** The folders the write globs grant, outermost first; nested ones dropped. */
export function writeRoots(globs: readonly string[], workspace: string): string[] {
  const dirs = globs.map((g) => resolve(workspace, staticPrefix(g) || "."));
  const unique = [...new Set(dirs)].sort((a, b) => a.length - b.length);
  return unique.filter((d, i) => !unique.slice(0, i).some((p) => d.startsWith(p + sep)));
}

/** The part of a glob before its first wildcard segment: `src/**\/*.ts` → `src`. */
export function staticPrefix(glob: string): string {
  const parts = glob.split("/");
  const fixed: string[] = [];
  for (const part of parts) {
    if (/[*?[\]{}()!]/.test(part)) break;
    fixed.push(part);
  }
  if (fixed.length === parts.length) return glob;
  const prefix = fixed.join("/");
  return prefix === "" && glob.startsWith("/") ? "/" : prefix;
}

/**
 * The repository of a workspace that is a git worktree (`.git` is a file naming
 * `<repo>/.git/worktrees/<name>`), or undefined.
 */
async function worktreeRepository(ws: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(ws, ".git"));
  } catch {
    return undefined; // a folder (an ordinary clone), or no git at all
  }
  const m = text.match(/^gitdir:\s*(.+?)\s*$/m);
  if (!m) return undefined;
  const gitdir = resolve(ws, m[1]);
  return /[\\/]worktrees[\\/][^\\/]+$/.test(gitdir) ? dirname(dirname(gitdir)) : undefined;
}

function insideHiddenDir(path: string, hidden: Map<string, string>): boolean {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (hidden.get(dir) === "hide-dir") return true;
  }
  return false;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
