/**
 * Runs one hook command with bash: payload on stdin, stdout and stderr captured
 * (bounded), killed with its whole process group when its time is up, so a hook
 * that starts `sleep` or a server cannot keep the run waiting.
 */
import type { HookConfig, HookOutcome, HookRunOptions } from "./hooks.ts";
import { runBounded } from "../util/subprocess.ts";

/** Most bytes kept of each output stream: a reason, not a log. */
const MAX_OUTPUT = 64 * 1024;
/** How long to wait for the pipes after the hook exited (a background child may hold them). */
const PIPE_GRACE_MS = 500;

export async function runHookCommand(
  hook: HookConfig,
  payload: string,
  options: HookRunOptions,
): Promise<HookOutcome> {
  try {
    const result = await runBounded("bash", {
      args: ["-c", hook.command],
      cwd: options.cwd,
      stdin: payload,
      env: options.env,
      clearEnv: options.clearEnv,
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_OUTPUT,
      pipeGraceMs: PIPE_GRACE_MS,
    });
    if (result.kind === "timeout") return result;
    return { kind: "exit", code: result.code, stdout: result.stdout, stderr: result.stderr };
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}
