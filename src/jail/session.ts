/**
 * One jail for the whole session: the backend's wrapper (bwrap, sandbox-exec)
 * around the supervisor, started once and asked to start each command. Commands
 * share the jail's network namespace, processes and /tmp, so a dev server started
 * as a background job answers the next call's tests. The jail ends with mopac:
 * on close, and through bwrap's --die-with-parent when mopac is killed.
 */
import { finishedWithin } from "../util/wait.ts";
import { FrameError, readFrames } from "./frames.ts";
import type { JailedChild } from "./jailed_child.ts";
import type { ShellSpawn } from "./types.ts";

export interface JailCommand {
  /** The wrapper and its arguments, ending with the supervisor's command line. */
  argv: string[];
  /** The wrapper's whole environment (the supervisor inherits it: no secrets here). */
  env: Record<string, string>;
  /** Hosts mode: the port socat listens on inside the jail and the proxy's socket there. */
  bridge?: { port: number; socket: string };
}

/** The jail did not come up; `detail` is what the wrapper said. */
export class JailStartError extends Error {
  constructor(message: string, readonly detail: string) {
    super(detail ? `${message}: ${detail}` : message);
    this.name = "JailStartError";
  }
}

const STDERR_TAIL = 8192;

export class SessionJail {
  readonly #proc: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #children = new Map<number, JailedChild>();
  readonly #ended: Promise<void>;
  #nextId = 1;
  #stderr = "";
  #alive = true;
  #endReason = "";
  #ready!: { resolve: () => void; reject: (err: Error) => void };

  private constructor(cmd: JailCommand) {
    this.#proc = new Deno.Command(cmd.argv[0], {
      args: cmd.argv.slice(1),
      clearEnv: true,
      env: cmd.env,
      cwd: "/",
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own group: a Ctrl-C meant for mopac reaches mopac, which then ends the jail.
      detached: true,
    }).spawn();
    this.#stdin = this.#proc.stdin.getWriter();
    void this.#readStderr();
    this.#ended = this.#readFrames();
  }

  /** Starts the jail and waits until its supervisor (and proxy bridge) is ready. */
  static async start(
    cmd: JailCommand,
    opts: { timeoutMs?: number; spawned?: () => void } = {},
  ): Promise<SessionJail> {
    const jail = new SessionJail(cmd);
    opts.spawned?.();
    const ready = new Promise<void>((resolve, reject) => jail.#ready = { resolve, reject });
    jail.#send(cmd.bridge ? { op: "bridge", ...cmd.bridge } : { op: "hello" });
    const timeoutMs = opts.timeoutMs ?? 60_000;
    try {
      const inTime = await finishedWithin(ready, timeoutMs);
      if (!inTime) throw new JailStartError(`the jail did not start within ${timeoutMs} ms`, "");
    } catch (err) {
      await jail.close();
      if (err instanceof JailStartError) throw err;
      throw new JailStartError("the jail did not start", jail.#stderrText());
    }
    return jail;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Why the jail ended, once it has. */
  get endReason(): string {
    return this.#endReason;
  }

  /** Starts a command inside the jail; its output and exit arrive on `child`. */
  attach(child: JailedChild, spec: ShellSpawn): void {
    if (!this.#alive) return child.failed(`the jail has ended (${this.#endReason})`);
    const id = this.#nextId++;
    if (!child.attach((signal) => this.#send({ op: "signal", id, signal }))) return;
    this.#children.set(id, child);
    this.#send({ op: "spawn", id, args: spec.args, cwd: spec.cwd, env: spec.env });
  }

  /** Ends the supervisor (it kills every command), then the jail's process itself. */
  async close(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    if (!(await finishedWithin(this.#proc.status, 1_000))) {
      try {
        this.#proc.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.#ended;
  }

  #send(msg: Record<string, unknown>): void {
    const line = new TextEncoder().encode(JSON.stringify(msg) + "\n");
    // A write after the jail ended fails; the frame reader reports that end.
    this.#stdin.write(line).catch(() => {});
  }

  async #readFrames(): Promise<void> {
    try {
      for await (const frame of readFrames(this.#proc.stdout)) {
        if (frame.t === "ready") this.#ready.resolve();
        else if (frame.t === "fatal") throw new FrameError(frame.error);
        else {
          const child = this.#children.get(frame.id);
          if (!child) continue;
          if (frame.t === "started") child.started(frame.pid);
          else if (frame.t === "out") child.data(frame.fd, frame.data);
          else if (frame.t === "eof") child.eof(frame.fd);
          else if (frame.t === "exit") child.ended({ code: frame.code, signal: frame.signal });
          else if (frame.t === "fail") {
            child.missingCwd = frame.nocwd === true;
            child.failed(frame.error);
          }
          if (child.done) this.#children.delete(frame.id);
        }
      }
      this.#endReason = "its supervisor exited";
    } catch (err) {
      this.#endReason = err instanceof FrameError ? err.message : String(err);
      // A broken protocol means the jail cannot be trusted to report: end it.
      try {
        this.#proc.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    this.#alive = false;
    const status = await this.#proc.status;
    const tail = this.#stderrText();
    if (tail) this.#endReason += `; ${tail}`;
    this.#ready.reject(new JailStartError("the jail ended", tail));
    for (const child of this.#children.values()) {
      child.failed(`the jail ended (${this.#endReason})`, {
        code: status.code === 0 ? 137 : status.code,
        signal: "SIGKILL",
      });
    }
    this.#children.clear();
  }

  async #readStderr(): Promise<void> {
    const dec = new TextDecoder();
    try {
      for await (const chunk of this.#proc.stderr) {
        this.#stderr = (this.#stderr + dec.decode(chunk, { stream: true })).slice(-STDERR_TAIL);
      }
    } catch {
      // the pipe broke
    }
  }

  #stderrText(): string {
    return this.#stderr.trim().split("\n").slice(-5).join(" | ");
  }
}
