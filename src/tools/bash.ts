/**
 * The `bash` tool (crush's name and parameters): runs a command in real bash in
 * the session's working directory with an explicitly built environment. The
 * directory and exported variables carry over to the next call. Commands still
 * running after `background_after` become background jobs (see job_output and
 * job_kill); `run_in_background` starts one at once. The permission gate checks
 * the parsed script (`access`) before anything runs.
 */
import { resolve } from "node:path";
import * as z from "zod";
import type { Access } from "../permission/types.ts";
import { defineTool } from "./define.ts";
import { baseEnv, buildChildEnv, type EnvSources, sessionExports } from "./shell/env.ts";
import type { JobManager } from "./shell/jobs.ts";
import { ShellProcess } from "./shell/process.ts";
import { formatFinished, startedJobMessage } from "./shell/report.ts";
import { DEFAULT_LIMITS, type TruncateLimits } from "./truncate.ts";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";
import { finishedWithin } from "../util/wait.ts";
import { readEnv } from "../util/env.ts";
import { loadOnce } from "../util/load_once.ts";
import { BAN_LIST } from "../permission/shell_ban_list.ts";
import type { ShellLauncher } from "../jail/types.ts";

export interface BashToolOptions {
  jobs: JobManager;
  /** A foreground command still running after this long becomes a background job (default 60 s). */
  backgroundAfterMs?: number;
  /** Time limit of a call that gives no `timeout` (default 2 min); run_in_background jobs have none. */
  defaultTimeoutMs?: number;
  /** Largest `timeout` accepted; a larger one is an argument error (default 10 min). */
  maxTimeoutMs?: number;
  /** How long run_in_background waits to report a command that fails at once (default 1 s). */
  startupWaitMs?: number;
  limits?: TruncateLimits;
  /** Reads mopac's environment for the child's base variables (tests replace it). */
  readEnv?: (name: string) => string | undefined;
  /** Where commands run: the session's OS jail, or directly (default; `--sandbox off`). */
  launcher?: ShellLauncher;
}

/** The jail's private scratch folders (realpath forms included: /tmp is /private/tmp on macOS). */
const JAIL_SCRATCH = ["/tmp", "/private/tmp", "/dev/shm"];

/** The arguments; the time limits have their maximum in the schema, so a larger one is an error. */
function schemaOf(defaultTimeoutMs: number, maxTimeoutMs: number, backgroundAfterMs: number) {
  return z.object({
    command: z.string().min(1, "command must not be empty").describe("The command to execute"),
    description: z.string().optional().describe(
      "A brief description of what the command does, in a few words",
    ),
    working_dir: z.string().optional().describe(
      "Directory to run this one command in (relative to the current directory); " +
        "the current directory is not changed by it",
    ),
    timeout: z.number().int().positive().max(maxTimeoutMs).optional().describe(
      `Time limit in milliseconds (default ${defaultTimeoutMs}, max ${maxTimeoutMs}); the command and all its ` +
        "child processes are killed when it is reached",
    ),
    run_in_background: z.boolean().optional().describe(
      "Start the command as a background job and return its id at once (servers, watchers). " +
        "Read its output with job_output, stop it with job_kill",
    ),
    auto_background_after: z.number().int().positive().max(maxTimeoutMs / 1000).optional()
      .describe(
        "Seconds to wait before a still-running command becomes a background job " +
          `(default ${backgroundAfterMs / 1000}, max ${maxTimeoutMs / 1000})`,
      ),
  });
}

/**
 * The shell policy's code is loaded at the first command the gate checks, not with the
 * tool: a run that never calls bash never pays for it. The parser package itself
 * (mvdan-sh, 1.5 MB of GopherJS, ~100 ms to start) waits for the first command that is
 * not plain (shell/plain.ts).
 */
const shellPolicy = loadOnce(() =>
  Promise.all([import("./shell/parse.ts"), import("./shell/redirects.ts")])
);

export function createBashTool(opts: BashToolOptions): Tool {
  const backgroundAfterMs = opts.backgroundAfterMs ?? 60_000;
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = opts.maxTimeoutMs ?? 600_000;
  const startupWaitMs = opts.startupWaitMs ?? 1_000;
  const limits = opts.limits ?? DEFAULT_LIMITS;
  // mopac's own environment does not change during a run, and every call builds the
  // child's environment twice from some fifty names: each is read once per tool.
  const read = readOnce(opts.readEnv ?? readEnv);

  return defineTool({
    name: "bash",
    description: describe(backgroundAfterMs, defaultTimeoutMs, maxTimeoutMs, limits.maxChars) +
      (opts.launcher?.summary ? `\n- ${opts.launcher.summary}` : ""),
    schema: schemaOf(defaultTimeoutMs, maxTimeoutMs, backgroundAfterMs),
    // The jail takes tens of milliseconds to come up: started while the command streams
    // in, it is usually ready when the call arrives. No command reaches it before a spawn.
    warm: () => opts.launcher?.prepare?.(),
    async access(input, ctx): Promise<Access> {
      // The jail's start (begun by the warm-up, or here) is waited for until its process
      // runs: loading the parser holds this thread for tens of milliseconds, which would
      // hold the start's own steps (building the plan, spawning bwrap) back until it is done.
      await opts.launcher?.prepare?.();
      const [{ parseShellLoading }, { redirectPaths }] = await shellPolicy();
      // Redirections are checked from the folder the call runs in (and where `cd` goes).
      const shell = await parseShellLoading(input.command, {
        cwd: callCwd(ctx, input.working_dir),
      });
      // In a jail, /tmp and /dev/shm are the session's own: scratch space, not the host's.
      const jailed = (opts.launcher?.backend ?? "none") !== "none";
      const redirects = await redirectPaths(shell);
      return { shell, redirects: jailed ? { ...redirects, scratch: JAIL_SCRATCH } : redirects };
    },
    async run(input, ctx): Promise<ToolOutput> {
      const cwd = callCwd(ctx, input.working_dir);
      // In a jail, /tmp and /run are the jail's own: whether the folder exists is its to say.
      const jailed = (opts.launcher?.backend ?? "none") !== "none";
      if (!jailed && await missingDir(cwd)) return cwdGone(ctx, cwd, input.working_dir);

      const jail = opts.launcher?.env;
      const env = buildChildEnv({ config: ctx.env, session: ctx.state.shell.env, read, jail });
      const timeoutMs = input.timeout !== undefined
        ? input.timeout
        : input.run_in_background
        ? undefined
        : defaultTimeoutMs;
      const proc = new ShellProcess({
        command: input.command,
        cwd,
        env,
        timeoutMs,
        launcher: opts.launcher,
      });

      if (input.run_in_background) {
        const early = await finishedWithin(proc.finished, startupWaitMs, ctx.signal);
        if (!early && ctx.signal.aborted) await proc.stop("aborted");
        else if (!early) {
          const job = opts.jobs.add(proc, { cwd, description: input.description });
          return { content: startedJobMessage(job, opts.jobs, limits, false) };
        }
        if (proc.missingCwd) return cwdGone(ctx, cwd, input.working_dir);
        return formatFinished(proc, { timeoutMs, limits });
      }

      const waitMs = input.auto_background_after !== undefined
        ? input.auto_background_after * 1000
        : backgroundAfterMs;
      const done = await finishedWithin(proc.finished, waitMs, ctx.signal);
      if (!done) {
        if (ctx.signal.aborted) {
          await proc.stop("aborted");
          return formatFinished(proc, { timeoutMs, limits });
        }
        const job = opts.jobs.add(proc, { cwd, description: input.description });
        return { content: startedJobMessage(job, opts.jobs, limits, true) };
      }
      if (proc.missingCwd) return cwdGone(ctx, cwd, input.working_dir);
      if (proc.lingering) opts.jobs.trackLeftover(proc);
      const moved = saveState(ctx, proc, input.working_dir === undefined, { read, jail });
      return formatFinished(proc, { timeoutMs, limits, movedTo: moved });
    },
  });
}

/** The folder a call runs in: the session's, moved by the call's `working_dir`. */
function callCwd(ctx: ToolContext, workingDir: string | undefined): string {
  return resolve(ctx.state.shell.cwd || ctx.workspace, workingDir ?? ".");
}

function readOnce(read: (name: string) => string | undefined) {
  const values = new Map<string, string | undefined>();
  return (name: string): string | undefined => {
    if (!values.has(name)) values.set(name, read(name));
    return values.get(name);
  };
}

/** The folder a command was to run in does not exist: an error, and a reset when it was the session's. */
function cwdGone(ctx: ToolContext, cwd: string, workingDir: string | undefined): ToolOutput {
  if (workingDir !== undefined) {
    return { content: `working_dir ${cwd} does not exist or is not a directory`, is_error: true };
  }
  // The session's directory was removed: start over from the workspace.
  ctx.state.shell.cwd = ctx.workspace;
  ctx.stateChanged();
  return {
    content: `The current directory ${cwd} no longer exists; it was reset to ${ctx.workspace}. ` +
      "Run the command again.",
    is_error: true,
  };
}

/** Carries the final directory and exports over; returns the new directory when it changed. */
function saveState(
  ctx: ToolContext,
  proc: ShellProcess,
  keepCwd: boolean,
  base: Pick<EnvSources, "read" | "jail">,
): string | undefined {
  const state = proc.state;
  if (!state || proc.stoppedBy) return undefined;
  const shell = ctx.state.shell;
  const before = shell.cwd || ctx.workspace;
  const exports = sessionExports(state.env, baseEnv({ config: ctx.env, ...base }), ctx.env);
  const cwdChanged = keepCwd && state.cwd !== "" && state.cwd !== before;
  if (!cwdChanged && sameRecord(exports, shell.env)) return undefined;
  if (cwdChanged) shell.cwd = state.cwd;
  shell.env = exports;
  ctx.stateChanged();
  return cwdChanged ? state.cwd : undefined;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

async function missingDir(path: string): Promise<boolean> {
  try {
    return !(await Deno.stat(path)).isDirectory;
  } catch (err) {
    // Not allowed to look (narrow --allow-read): let bash find out.
    return !(err instanceof Deno.errors.NotCapable);
  }
}

function describe(
  backgroundMs: number,
  timeoutMs: number,
  maxMs: number,
  maxChars: number,
): string {
  const banned = BAN_LIST.map((e) => {
    const examples = e.commands.length ? e.commands.slice(0, 6) : e.when.slice(0, 2);
    return `${e.group.replace("_", " ")}: ${examples.join(", ")}, …`;
  }).join("; ");
  return [
    "Runs a command in bash and returns its combined stdout and stderr and its exit code.",
    "",
    "- One shell session: the current directory and exported variables carry over to the next call " +
    "(aliases, functions and unexported variables do not). A `cd` moves the current directory of " +
    "every tool: relative paths in view, edit, ls and the others resolve against it too.",
    "- No interactive input: stdin is empty, no TTY, no pagers or editors (GIT_PAGER=cat, GIT_EDITOR=true). " +
    "Pass flags such as `-y` or `--no-edit` instead.",
    `- Time limit: ${timeoutMs / 1000} s unless \`timeout\` (ms, at most ${
      maxMs / 1000
    } s) says otherwise; ` +
    "the command and every process it started are killed when it runs out.",
    `- A command still running after ${
      backgroundMs / 1000
    } s becomes a background job: you get its id and ` +
    "the output so far; use job_output to follow it and job_kill to stop it.",
    "- For servers, watchers and anything that does not end by itself use `run_in_background: true` " +
    "(never a trailing `&`).",
    `- Output over ${maxChars} characters is cut in the middle; the note says how much. ` +
    "Send long output to a file and read parts of it.",
    "- Prefer the view, ls, glob, grep and edit tools over cat, find, grep and sed for files.",
    "- Every command in the script is checked before it runs (pipelines, substitutions, `bash -c` strings, " +
    "wrappers such as env, xargs, timeout). Commands whose name is only known at run time (`$CMD`, " +
    "`$(…)` as a command) are refused, as are assignments to variables that change what runs " +
    "(PATH, LD_*, GIT_*, BASH_ENV, PS4, npm_config_*, …) unless allowed, and redirections to a file " +
    "that is not written out literally (`> $f`, `> ~/x`); a redirection's file must be one the " +
    "file tools may read or write. Such variables are never carried to the next call. " +
    "Banned whatever the permissions say: " + `${banned}.`,
  ].join("\n");
}
