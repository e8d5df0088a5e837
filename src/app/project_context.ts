/**
 * Gathers what the system prompt says about the project: context files from the
 * user's config dir and from the git root down to the cwd, and the environment with
 * git state. Whatever the sandbox does not let mopac read is skipped quietly; the
 * permission is asked first, so Deno never prompts on a terminal.
 */
import { join, relative, resolve, sep } from "node:path";
import type { ContextFile, EnvironmentInfo } from "../agent/system_prompt.ts";
import { foldersFromRoot, userDirs } from "../config/paths.ts";
import { within } from "../config/mod.ts";
import { readEnv } from "../util/env.ts";
import { gitInfo } from "./git_info.ts";
import { granted } from "../deno_perms/needs.ts";

/**
 * Looked for in every folder from the git root down to the cwd, in this order, each
 * followed by its `.local` variant (AGENTS.local.md, .cursorrules.local). Names match
 * case-insensitively, as crush also reads agents.md, Crush.md and gemini.md.
 */
const CONTEXT_NAMES = [
  "AGENTS.md",
  "MOPAC.md",
  "CRUSH.md",
  "CLAUDE.md",
  "GEMINI.md",
  ".cursorrules",
  ".github/copilot-instructions.md",
];
/** Every file below it (Cursor's rules), after the names above. */
const CURSOR_RULES_DIR = ".cursor/rules";
/** Read from `$XDG_CONFIG_HOME/mopac/` (default ~/.config/mopac/): instructions for every project. */
const GLOBAL_NAMES = ["AGENTS.md", "MOPAC.md"];

/** Bytes read of one context file at most; the prompt caps far below this anyway. */
const READ_LIMIT = 256 * 1024;
/** Files taken from one directory (.cursor/rules, a directory in context_paths). */
const MAX_DIR_FILES = 50;

export interface ContextOptions {
  /** The workspace (git) root. */
  root: string;
  cwd: string;
  /** `options.context_paths`: files or directories, relative to the root. */
  contextPaths?: string[];
  /** `options.global_context_paths`: files or directories, relative to the global dir. */
  globalPaths?: string[];
  /** Default `$XDG_CONFIG_HOME/mopac`; null for none (tests). */
  globalDir?: string | null;
  /** Home folder for `~/`; default $HOME. */
  home?: string;
  /**
   * An untrusted project's real root: a file inside the project (a context file,
   * `.cursor/rules`, a `context_paths` entry) whose real path lies outside it is
   * skipped, so a symlinked AGENTS.md cannot put /etc/passwd or /proc/self/environ
   * into the prompt. Files the operator's config names outside the project are read.
   */
  confineTo?: string;
}

function localVariant(name: string): string {
  return name.endsWith(".md") ? name.replace(/\.md$/, ".local.md") : `${name}.local`;
}

/** Global files first, then the root's down to the cwd's (nearer ones later), then context_paths. */
export async function findContextFiles(opts: ContextOptions): Promise<ContextFile[]> {
  const home = opts.home ?? readEnv("HOME");
  const found = new Collector(opts.root, opts.confineTo);
  const listings = new Map<string, Promise<string[]>>();
  const globalDir = opts.globalDir === undefined
    ? defaultGlobalDir(home)
    : opts.globalDir ?? undefined;
  if (globalDir) {
    for (const name of GLOBAL_NAMES) await found.addFile(join(globalDir, name));
    for (const p of opts.globalPaths ?? []) {
      await found.addPath(resolve(globalDir, expandHome(p, home)));
    }
  }
  for (const dir of foldersFromRoot(opts.root, opts.cwd)) {
    for (const name of CONTEXT_NAMES) {
      for (const file of await matching(dir, name, listings)) await found.addFile(file);
      for (const file of await matching(dir, localVariant(name), listings)) {
        await found.addFile(file);
      }
    }
    await found.addPath(join(dir, CURSOR_RULES_DIR));
  }
  for (const p of opts.contextPaths ?? []) {
    await found.addPath(resolve(opts.root, expandHome(p, home)));
  }
  return found.files;
}

function defaultGlobalDir(home: string | undefined): string | undefined {
  const { configHome } = userDirs(readEnv, home);
  return configHome ? join(configHome, "mopac") : undefined;
}

/** Files of one folder whose name matches `name` ignoring case (a/b.md: `a` exactly). */
async function matching(
  dir: string,
  name: string,
  listings: Map<string, Promise<string[]>>,
): Promise<string[]> {
  const slash = name.lastIndexOf("/");
  const folder = slash < 0 ? dir : join(dir, name.slice(0, slash));
  const want = name.slice(slash + 1).toLowerCase();
  if (!listings.has(folder)) listings.set(folder, fileNames(folder));
  const names = await listings.get(folder)!;
  return names.filter((n) => n.toLowerCase() === want).map((n) => join(folder, n));
}

/** Names of the non-directory entries of a folder, sorted; none when unreadable. */
async function fileNames(folder: string): Promise<string[]> {
  if (!canRead(folder)) return [];
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(folder)) if (!e.isDirectory) out.push(e.name);
  } catch {
    return [];
  }
  return out.sort();
}

class Collector {
  files: ContextFile[] = [];
  #seen = new Set<string>();
  constructor(private root: string, private confineTo?: string) {}

  /** A file, or every file below a directory (sorted, at most MAX_DIR_FILES). */
  async addPath(path: string): Promise<void> {
    if (!canRead(path)) return;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      return;
    }
    if (!info.isDirectory) return this.addFile(path);
    const files: string[] = [];
    await walk(path, files);
    for (const f of files) await this.addFile(f);
  }

  async addFile(path: string): Promise<void> {
    // The same file twice (CLAUDE.md a symlink to AGENTS.md, or also in context_paths) counts once.
    const real = await realPath(path);
    if (this.confineTo && within(resolve(path), this.root)) {
      if (!real || !within(real, this.confineTo)) return;
    }
    if (this.#seen.has(real ?? resolve(path))) return;
    this.#seen.add(real ?? resolve(path));
    const read = await readCapped(path, READ_LIMIT);
    if (read === undefined || read.content.trim() === "") return;
    const inside = path.startsWith(this.root + sep);
    this.files.push({
      path: inside ? relative(this.root, path) : path,
      content: read.content,
      ...(read.truncated ? { truncated: true } : {}),
    });
  }
}

async function walk(dir: string, out: string[], depth = 0): Promise<void> {
  if (depth > 3 || !canRead(dir)) return;
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const e of Deno.readDir(dir)) entries.push(e);
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (out.length >= MAX_DIR_FILES) return;
    if (e.isDirectory) await walk(join(dir, e.name), out, depth + 1);
    else out.push(join(dir, e.name));
  }
}

/** True when Deno's permissions let us read `path`; never prompts. */
export function canRead(path: string): boolean {
  return granted({ name: "read", path });
}

export function expandHome(path: string, home: string | undefined): string {
  if (!home) return path;
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** Undefined when the path is missing, dangling or hidden by Deno's sandbox. */
async function realPath(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch {
    return undefined;
  }
}

/** The start of a text file (at most `max` bytes); undefined when it cannot be read. */
export async function readCapped(
  path: string,
  max: number,
): Promise<{ content: string; truncated: boolean } | undefined> {
  if (!canRead(path)) return undefined;
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(path, { read: true });
    const info = await file.stat();
    if (!info.isFile) return undefined;
    const buf = new Uint8Array(Math.min(info.size, max));
    let at = 0;
    while (at < buf.length) {
      const n = await file.read(buf.subarray(at));
      if (n === null) break;
      at += n;
    }
    const content = new TextDecoder().decode(buf.subarray(0, at));
    return { content, truncated: info.size > max };
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}

/**
 * The environment block's facts. `exclude`: folders left out of the git status
 * (mopac's data folder, which the run itself writes to).
 */
export async function environmentInfo(
  cwd: string,
  now: Date,
  opts: { workspace?: string; exclude?: string[] } = {},
): Promise<EnvironmentInfo> {
  const info: EnvironmentInfo = {
    workspace: opts.workspace ?? cwd,
    cwd,
    os: `${Deno.build.os} ${Deno.build.arch}`,
    date: now.toISOString().slice(0, 10),
  };
  const git = await gitInfo(cwd, opts.exclude);
  if (git) info.git = git;
  return info;
}
