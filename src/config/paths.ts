/**
 * Where config files and the data dir live: the git root found by walking up from
 * the cwd, the user-level XDG folders, and the project files from the root down.
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import { UsageError } from "../util/errors.ts";

/**
 * Project file names in one folder, lowest first: crush's below mopac's, and of
 * crush's, `.crush.json` above `crush.json` as crush itself has it.
 */
export const PROJECT_FILE_NAMES = [
  "crush.json",
  ".crush.json",
  ".mopacrc",
  "mopacrc",
  ".mopac.json",
  "mopac.json",
];

export const SYSTEM_CONFIG_FILE = "/etc/mopac/mopac.json";
export const DATA_DIR_NAME = ".mopac";

/** Where logs of a data dir go (MCP servers' stderr). */
export function logsDir(dataDir: string): string {
  return join(dataDir, "logs");
}

/**
 * The nearest folder at or above `cwd` holding `.git` (a folder, or a file in a
 * worktree). Folders the sandbox does not let us look at end the walk.
 */
export async function findGitRoot(cwd: string): Promise<string | undefined> {
  let dir = resolve(cwd);
  while (true) {
    try {
      await Deno.lstat(join(dir, ".git"));
      return dir;
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) return undefined;
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) {
        throw err;
      }
    }
    const parent = resolve(dir, "..");
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Folders from `root` down to `cwd`; just `cwd` when it is not inside `root`. */
export function foldersFromRoot(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  if (rel === "") return [root];
  if (rel.startsWith("..") || isAbsolute(rel)) return [cwd];
  const out = [root];
  let dir = root;
  for (const part of rel.split(/[\\/]/).filter(Boolean)) {
    dir = join(dir, part);
    out.push(dir);
  }
  return out;
}

export interface UserDirs {
  configHome?: string;
  dataHome?: string;
}

/** `$XDG_CONFIG_HOME` / `$XDG_DATA_HOME`, defaulting under the home folder. */
export function userDirs(env: (n: string) => string | undefined, home?: string): UserDirs {
  const h = home ?? env("HOME");
  return {
    configHome: env("XDG_CONFIG_HOME") || (h ? join(h, ".config") : undefined),
    dataHome: env("XDG_DATA_HOME") || (h ? join(h, ".local", "share") : undefined),
  };
}

/**
 * Where OAuth logins of MCP servers are kept: the user's data dir, never the
 * project's (which the repository, and so the model, can reach).
 */
export function oauthTokenDir(
  env: (n: string) => string | undefined,
  home?: string,
): string | undefined {
  const { dataHome } = userDirs(env, home);
  return dataHome ? join(dataHome, "mopac", "mcp-oauth") : undefined;
}

export interface DataDirInput {
  cwd: string;
  workspaceRoot: string;
  home?: string;
  /** `--data-dir`, relative to the cwd. */
  flag?: string;
  /** `MOPAC_DATA_DIR`, relative to the cwd. */
  env?: string;
  /** `options.data_directory`, relative to the project root. */
  configured?: string;
}

/** `--data-dir` > `MOPAC_DATA_DIR` > `options.data_directory` > `<project root>/.mopac`. */
export function resolveDataDir(input: DataDirInput): string {
  const tilde = (p: string) =>
    input.home && (p === "~" || p.startsWith("~/")) ? join(input.home, p.slice(1)) : p;
  if (input.flag) return resolve(input.cwd, tilde(input.flag));
  if (input.env) return resolve(input.cwd, tilde(input.env));
  if (input.configured) return resolve(input.workspaceRoot, tilde(input.configured));
  return join(input.workspaceRoot, DATA_DIR_NAME);
}

/**
 * The project root and data dir for a cwd with default settings (no flags, env or
 * config): what `mopac` uses when nothing overrides it.
 */
export async function defaultDataDir(
  cwd: string,
): Promise<{ workspaceRoot: string; dataDir: string }> {
  const workspaceRoot = (await findGitRoot(cwd)) ?? resolve(cwd);
  return { workspaceRoot, dataDir: join(workspaceRoot, DATA_DIR_NAME) };
}

/**
 * A cwd or data dir that is missing or a file would otherwise fail later for a
 * misleading reason ("no model selected", "cannot read …/file/.crush.json").
 * What the sandbox hides is left to the preflight, which names the flag.
 */
export async function checkDirectory(
  path: string,
  what: string,
  missingOk: boolean,
): Promise<void> {
  const hint = what === "the data dir"
    ? "it comes from --data-dir, MOPAC_DATA_DIR or options.data_directory"
    : "check --cwd";
  let isDirectory: boolean;
  try {
    isDirectory = (await Deno.stat(path)).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound && missingOk) return;
    if (err instanceof Deno.errors.NotFound) {
      throw new UsageError(`${what} ${path} does not exist`, { hint });
    }
    if (!(err instanceof Deno.errors.NotADirectory)) return;
    isDirectory = false;
  }
  if (!isDirectory) throw new UsageError(`${what} ${path} is not a directory`, { hint });
}

/** The highest of these layer values' `options.data_directory`, when it is a string. */
export function configuredDataDir(values: readonly unknown[]): string | undefined {
  let found: string | undefined;
  for (const value of values) {
    const options = (value as Record<string, unknown> | undefined)?.options;
    if (options && typeof options === "object" && !Array.isArray(options)) {
      const dir = (options as Record<string, unknown>).data_directory;
      if (typeof dir === "string") found = dir;
    }
  }
  return found || undefined;
}
