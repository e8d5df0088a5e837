/**
 * Runs one hook command with bash: payload on stdin, stdout and stderr captured
 * (bounded), killed with its whole process group when its time is up, so a hook
 * that starts `sleep` or a server cannot keep the run waiting.
 */
import type { HookConfig, HookOutcome, HookRunOptions } from "./hooks.ts";
import { finishedWithin } from "../util/wait.ts";
import { killTree } from "../util/process_group.ts";
import { concatBytes } from "../util/bytes.ts";

/** Most bytes kept of each output stream: a reason, not a log. */
const MAX_OUTPUT = 64 * 1024;
/** How long to wait for the pipes after the hook exited (a background child may hold them). */
const PIPE_GRACE_MS = 500;

export async function runHookCommand(
  hook: HookConfig,
  payload: string,
  options: HookRunOptions,
): Promise<HookOutcome> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: ["-c", hook.command],
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own process group, so a time-out can end everything it started.
      detached: Deno.build.os !== "windows",
      env: options.env,
      clearEnv: options.clearEnv,
    }).spawn();
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }

  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  // A hook that ignores stdin closes the pipe early; that is not an error.
  const writer = child.stdin.getWriter();
  writer.write(new TextEncoder().encode(payload)).then(() => writer.close()).catch(() => {});

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child);
  }, options.timeoutMs);
  const status = await child.status;
  clearTimeout(timer);
  await finishedWithin(Promise.all([stdout.done, stderr.done]), PIPE_GRACE_MS);
  await Promise.all([stdout.cancel(), stderr.cancel()]);

  if (timedOut) return { kind: "timeout" };
  return { kind: "exit", code: status.code, stdout: stdout.text(), stderr: stderr.text() };
}

function collect(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (size < MAX_OUTPUT) chunks.push(value.subarray(0, MAX_OUTPUT - size));
        size += value.length;
      }
    } catch {
      // Cancelled after the grace period: keep what arrived.
    }
  })();
  return {
    done,
    text: () => new TextDecoder().decode(concatBytes(chunks)),
    cancel: () => reader.cancel().catch(() => {}),
  };
}
