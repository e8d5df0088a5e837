/**
 * Runs the command of a `$(...)` in config with real bash and a hard time limit.
 * The child gets its own process group so that on time-out its own children die
 * with it; we stop waiting for its output either way, so a grandchild that
 * survives cannot hold the pipes open.
 */
import { killTree } from "../util/process_group.ts";

export type CommandResult =
  | { kind: "ok"; stdout: string }
  | { kind: "failed"; code: number; stderr: string }
  | { kind: "timeout" };

export async function runConfigCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
): Promise<CommandResult> {
  const child = new Deno.Command("bash", {
    args: ["-c", command],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((done) => {
    timer = setTimeout(() => done("timeout"), timeoutMs);
  });
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  const finished = Promise.all([out.text, err.text, child.status]);
  try {
    const outcome = await Promise.race([finished, timedOut]);
    if (outcome === "timeout") {
      killTree(child);
      // Pipes held open by a surviving grandchild must not keep us (or the process) waiting.
      finished.catch(() => {});
      await Promise.all([out.cancel(), err.cancel()]);
      return { kind: "timeout" };
    }
    const [stdout, stderr, status] = outcome;
    return status.success ? { kind: "ok", stdout } : { kind: "failed", code: status.code, stderr };
  } finally {
    clearTimeout(timer);
  }
}

function collect(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  const text = (async () => {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const decoder = new TextDecoder();
    return chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
  })();
  return { text, cancel: () => reader.cancel().catch(() => {}) };
}
