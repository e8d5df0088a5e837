/**
 * A command running inside the session's jail, as the bash tool sees it: the same
 * shape as a direct child (status, stdout, stderr, group signal), fed by the frames
 * the supervisor sends. It exists before the jail is up, so starting the jail lazily
 * on the first command costs the caller nothing but the wait.
 */
import type { ChildExit, ShellChild } from "./types.ts";

/** Exit code of a command that could not be started (the shell's "cannot execute"). */
export const CANNOT_START = 126;

export class JailedChild implements ShellChild {
  pid = 0;
  missingCwd = false;
  readonly status: Promise<ChildExit>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;

  #out!: ReadableStreamDefaultController<Uint8Array>;
  #err!: ReadableStreamDefaultController<Uint8Array>;
  #open = { out: true, err: true };
  #resolve!: (exit: ChildExit) => void;
  #exited = false;
  #send?: (sig: "SIGTERM" | "SIGKILL") => void;
  #killedEarly = false;

  constructor() {
    this.stdout = new ReadableStream({ start: (c) => void (this.#out = c) });
    this.stderr = new ReadableStream({ start: (c) => void (this.#err = c) });
    this.status = new Promise((resolve) => this.#resolve = resolve);
  }

  /** Connected to the jail: signals go there from now on. False when it was stopped before. */
  attach(send: (sig: "SIGTERM" | "SIGKILL") => void): boolean {
    if (this.#killedEarly) return false;
    this.#send = send;
    return true;
  }

  signal(sig: "SIGTERM" | "SIGKILL"): void {
    if (this.#send) return this.#send(sig);
    // Stopped while the jail was still starting: it never runs.
    this.#killedEarly = true;
    this.close();
    this.ended({ code: 128 + (sig === "SIGTERM" ? 15 : 9), signal: sig });
  }

  /** Exited and both outputs closed: no frame can concern it any more. */
  get done(): boolean {
    return this.#exited && !this.#open.out && !this.#open.err;
  }

  started(pid: number): void {
    this.pid = pid;
  }

  data(fd: number, bytes: Uint8Array): void {
    if (fd === 1 && this.#open.out) this.#out.enqueue(bytes);
    else if (fd === 2 && this.#open.err) this.#err.enqueue(bytes);
  }

  eof(fd: number): void {
    if (fd === 1 && this.#open.out) {
      this.#open.out = false;
      this.#out.close();
    } else if (fd === 2 && this.#open.err) {
      this.#open.err = false;
      this.#err.close();
    }
  }

  ended(exit: ChildExit): void {
    if (this.#exited) return;
    this.#exited = true;
    this.#resolve(exit);
  }

  /** The command never ran (or its jail is gone): say why where bash's own errors go. */
  failed(message: string, exit: ChildExit = { code: CANNOT_START, signal: null }): void {
    this.data(2, new TextEncoder().encode(`mopac: ${message}\n`));
    this.close();
    this.ended(exit);
  }

  /** Closes whatever output is still open (the jail ended). */
  close(): void {
    this.eof(1);
    this.eof(2);
  }
}
