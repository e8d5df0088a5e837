/**
 * The git facts of the system prompt: branch, `git status --short` and the last
 * three commits. Optional: skipped quietly when `--allow-run=git` is not granted
 * (asked first, so Deno never prompts), git is missing, the folder is no repository,
 * or git is slow. Each command is bounded in time and in output size.
 */
import { runBounded } from "../util/subprocess.ts";
import { granted } from "../deno_perms/needs.ts";

export interface GitInfo {
  branch: string;
  status: string;
  commits: string;
}

const GIT_LIMITS = {
  /** Per command; a huge repository must not hold up the run. */
  timeoutMs: 2_000,
  /** Bytes kept of each command's output; the rest is not even read. */
  maxBytes: 8_000,
};

/** Git facts of `cwd`; `exclude` names folders (absolute, inside the workspace) left out of the status. */
export async function gitInfo(cwd: string, exclude: string[] = []): Promise<GitInfo | undefined> {
  if (!gitAllowed()) return undefined;
  // Absolute paths work as pathspecs inside the work tree; `:(exclude)` leaves them out.
  const pathspec = exclude.length ? ["--", ...exclude.map((p) => `:(exclude)${p}`)] : [];
  // `branch --show-current` also works before the first commit and prints nothing
  // when HEAD is detached; outside a repository it fails, and so does the whole block.
  const [branch, status, commits] = await Promise.all([
    git(cwd, ["branch", "--show-current"]),
    git(cwd, ["status", "--short", ...pathspec]),
    git(cwd, ["log", "--oneline", "-n", "3"]),
  ]);
  if (branch === undefined || status === undefined) return undefined;
  return { branch: branch.trim(), status, commits: commits ?? "" };
}

function gitAllowed(): boolean {
  return granted({ name: "run", command: "git" });
}

/** Output of one git command, or undefined when it failed, was too slow or could not start. */
async function git(cwd: string, args: string[]): Promise<string | undefined> {
  let result;
  try {
    result = await runBounded("git", {
      // No pager, no lock on the index (status may run beside the user's git), no quoting
      // of non-ASCII paths.
      args: ["--no-pager", "--no-optional-locks", "-c", "core.quotepath=off", ...args],
      cwd,
      timeoutMs: GIT_LIMITS.timeoutMs,
      maxBytes: GIT_LIMITS.maxBytes,
      // Enough read: stop git instead of letting it fill a pipe nobody reads.
      stopWhenFull: true,
      ignoreStderr: true,
    });
  } catch {
    return undefined;
  }
  if (result.kind === "timeout" || (!result.success && !result.cut)) return undefined;
  const text = result.stdout;
  return result.cut ? `${text.slice(0, text.lastIndexOf("\n") + 1)}[... more lines cut]\n` : text;
}
