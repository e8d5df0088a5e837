/**
 * The host half of the proxy bridge on Linux: a socat that turns the proxy's
 * loopback port into a Unix socket, which bwrap mounts into the jail (whose own
 * network namespace cannot reach the host's loopback). socat runs inside a minimal
 * bwrap of its own that shares the host network, for --die-with-parent: a SIGKILL
 * of mopac takes it along, and Deno needs no --allow-run for socat.
 */
import { dirname, join } from "node:path";
import { finishedWithin } from "../util/wait.ts";
import { BWRAP, namespaceArgs, pathEnv } from "./bwrap.ts";
import { ensureDataDir } from "../util/data_dir.ts";

export class HostBridge {
  #stderr = "";
  readonly #reading: Promise<void>;

  private constructor(readonly socket: string, readonly proc: Deno.ChildProcess) {
    this.#reading = (async () => {
      const dec = new TextDecoder();
      try {
        for await (const chunk of proc.stderr) this.#stderr += dec.decode(chunk, { stream: true });
      } catch {
        // killed
      }
    })();
  }

  /** Starts socat and waits until its socket exists. */
  static async start(runDir: string, proxyPort: number, timeoutMs = 20_000): Promise<HostBridge> {
    // runDir lies in the data dir; one made here gets its .gitignore.
    await ensureDataDir(dirname(runDir));
    await Deno.mkdir(runDir, { recursive: true });
    const socket = join(runDir, `proxy-${crypto.randomUUID().slice(0, 8)}.sock`);
    if (new TextEncoder().encode(socket).length > 100) {
      throw new Error(`the proxy's socket path ${socket} is too long; use a shorter --data-dir`);
    }
    const proc = new Deno.Command(BWRAP, {
      args: [
        ...namespaceArgs({ mode: "all" }),
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--bind",
        runDir,
        runDir,
        "--",
        "socat",
        `UNIX-LISTEN:${socket},fork,mode=600`,
        `TCP:127.0.0.1:${proxyPort}`,
      ],
      clearEnv: true,
      env: { PATH: pathEnv() },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const bridge = new HostBridge(socket, proc);
    const end = Date.now() + timeoutMs;
    let exited = false;
    const status = proc.status.then(() => exited = true);
    for (let wait = 2; !(await exists(socket)); wait = Math.min(wait * 2, 50)) {
      if (exited || Date.now() > end) {
        await bridge.close();
        const why = bridge.#stderr.trim().split("\n").slice(-3).join(" | ");
        throw new Error(`the proxy bridge (socat) did not start: ${why || "timed out"}`);
      }
      await finishedWithin(status, wait);
    }
    return bridge;
  }

  /** socat is still running. */
  async alive(): Promise<boolean> {
    return !(await finishedWithin(this.proc.status, 0));
  }

  async close(): Promise<void> {
    try {
      this.proc.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.proc.status;
    await this.#reading;
    await Deno.remove(this.socket).catch(() => {});
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
