/**
 * Runs a short-lived helper command with bounds: a deadline after which the command
 * and everything it started (its own process group) are killed, and a cap on the
 * output kept. Used where mopac itself runs a command it must not wait on forever:
 * config `$(…)`, PreToolUse hooks, the git facts of the system prompt. (The bash
 * tool's processes are the model's and run elsewhere, in their jail.)
 */
import { killTree } from "./process_group.ts";
import { concatBytes } from "./bytes.ts";
import { finishedWithin } from "./wait.ts";

export interface BoundedCommand {
  args: string[];
  cwd: string;
  /** Written to stdin, which is then closed; absent: no stdin at all. */
  stdin?: string;
  env?: Record<string, string>;
  /** Pass on only `env`, not mopac's own environment (which may hold provider keys). */
  clearEnv?: boolean;
  /** When the command (and its group) is killed and the result is `timeout`. */
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is read and dropped. Default: all. */
  maxBytes?: number;
  /** Once stdout has `maxBytes`, stop the command rather than read on (the rest is unwanted). */
  stopWhenFull?: boolean;
  /** stderr is not read at all (it goes nowhere). */
  ignoreStderr?: boolean;
  /**
   * After the command exited, how long to wait for its pipes, which a background
   * child may hold open; then what arrived is the output. Default: until the deadline,
   * which then counts as a timeout.
   */
  pipeGraceMs?: number;
}

export type BoundedResult =
  | {
    kind: "exit";
    code: number;
    success: boolean;
    stdout: string;
    stderr: string;
    /** stdout had more than `maxBytes`. */
    cut: boolean;
  }
  | { kind: "timeout" };

/**
 * Runs `command` within the bounds. Throws when it cannot start at all (not found,
 * or Deno's permissions refuse it: the caller decides what that means).
 */
export async function runBounded(command: string, opts: BoundedCommand): Promise<BoundedResult> {
  const child = new Deno.Command(command, {
    args: opts.args,
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: opts.ignoreStderr ? "null" : "piped",
    // Its own process group, so the deadline can end everything it started.
    detached: Deno.build.os !== "windows",
    env: opts.env,
    clearEnv: opts.clearEnv,
  }).spawn();
  if (opts.stdin !== undefined) {
    // A command that ignores stdin closes the pipe early; that is not an error.
    const writer = child.stdin.getWriter();
    writer.write(new TextEncoder().encode(opts.stdin)).then(() => writer.close()).catch(() => {});
  }
  const max = opts.maxBytes ?? Infinity;
  const stdout = collect(child.stdout, max, opts.stopWhenFull ? () => killTree(child) : undefined);
  const stderr = opts.ignoreStderr ? undefined : collect(child.stderr, max);
  const pipes = Promise.all([stdout.done, stderr?.done]);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      killTree(child);
      resolve("timeout");
    }, opts.timeoutMs);
  });
  try {
    const status = await Promise.race([child.status, deadline]);
    if (status === "timeout") return { kind: "timeout" };
    if (opts.pipeGraceMs !== undefined) {
      clearTimeout(timer);
      await finishedWithin(pipes, opts.pipeGraceMs);
    } else if (await Promise.race([pipes.then(() => "drained" as const), deadline]) === "timeout") {
      return { kind: "timeout" };
    }
    return {
      kind: "exit",
      code: status.code,
      success: status.success,
      stdout: stdout.text(),
      stderr: stderr?.text() ?? "",
      cut: stdout.cut(),
    };
  } finally {
    clearTimeout(timer);
    // Pipes held open by a surviving grandchild must not keep the process alive.
    await Promise.all([stdout.cancel(), stderr?.cancel()]);
  }
}

/** Reads a stream, keeping at most `max` bytes; `full` is called once when more arrive. */
function collect(stream: ReadableStream<Uint8Array>, max: number, full?: () => void) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (size < max) chunks.push(value.subarray(0, max - size));
        size += value.length;
        if (size > max && !cut) {
          cut = true;
          if (full) {
            full();
            return;
          }
        }
      }
    } catch {
      // Cancelled: keep what arrived.
    }
  })();
  return {
    done,
    cut: () => cut,
    text: () => new TextDecoder().decode(concatBytes(chunks)),
    cancel: () => reader.cancel().catch(() => {}),
  };
}
