/**
 * Runs the command of a `$(...)` in config with real bash and a hard time limit;
 * on time-out it is killed with everything it started (util/subprocess.ts).
 */
import { runBounded } from "../util/subprocess.ts";

export type CommandResult =
  | { kind: "ok"; stdout: string }
  | { kind: "failed"; code: number; stderr: string }
  | { kind: "timeout" };

/** Throws when bash cannot start (not installed, or not allowed). */
export async function runConfigCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
): Promise<CommandResult> {
  const result = await runBounded("bash", { args: ["-c", command], cwd, timeoutMs });
  if (result.kind === "timeout") return result;
  return result.success
    ? { kind: "ok", stdout: result.stdout }
    : { kind: "failed", code: result.code, stderr: result.stderr };
}
