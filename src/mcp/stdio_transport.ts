/**
 * MCP over a child's stdin/stdout (newline-delimited JSON-RPC). Written here rather
 * than taken from the SDK because the SDK's StdioClientTransport gives the child no
 * process group, so `npx`/`bash -c` grandchildren outlive it, and an environment of
 * its own choosing. Here the child gets exactly `env` (the caller builds it from a
 * clean base: no provider keys), leads its own group, and its stderr goes to a log file.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { finishedWithin } from "../util/wait.ts";
import { systemClock } from "../util/clock.ts";
import { groupAlive, signalGroup, trackGroup, untrackGroup } from "../util/process_group.ts";
import { readMessages } from "./stdio_framing.ts";
import { StderrLog } from "./stderr_log.ts";

export interface StdioOptions {
  command: string;
  args?: string[];
  /** The child's whole environment (nothing of mopac's own is inherited). */
  env?: Record<string, string>;
  cwd?: string;
  /** Append-mode log file for the child's stderr. */
  logPath: string;
  /** Applied to each line before it is logged; lines are then written whole. */
  redactLog?: (text: string) => string;
  /** Grace after closing stdin before TERM; TERM → KILL waits KILL_AFTER_MS. */
  stdinGraceMs?: number;
}

const KILL_AFTER_MS = 5_000;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #opts: StdioOptions;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #exited?: Promise<Deno.CommandStatus>;
  #exitStatus?: Deno.CommandStatus;
  #stderr?: StderrLog;
  #closed = false;
  #exitedOnItsOwn = false;
  #writes = new Set<Promise<void>>();
  #stdoutDone?: Promise<void>;
  #encoder = new TextEncoder();

  constructor(opts: StdioOptions) {
    this.#opts = opts;
  }

  get command(): string {
    return this.#opts.command;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the child wrote to stderr: the best explanation when it dies early. */
  get stderrTail(): string {
    return this.#stderr?.tail ?? "";
  }

  get exitStatus(): Deno.CommandStatus | undefined {
    return this.#exitStatus;
  }

  /** Whether the child exited before `close()`: then its exit explains a failure. */
  get exitedOnItsOwn(): boolean {
    return this.#exitedOnItsOwn;
  }

  /** Waits up to `ms` for the child to exit and its stderr to be read, to explain a failure. */
  async settle(ms: number): Promise<void> {
    if (!this.#exited) return;
    await finishedWithin(Promise.all([this.#exited, this.#stderr?.done]), ms);
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("StdioTransport already started");
    const child = new Deno.Command(this.#opts.command, {
      args: this.#opts.args ?? [],
      // Exactly `env`: mopac's own environment holds provider keys and tokens.
      clearEnv: true,
      env: this.#opts.env ?? {},
      cwd: this.#opts.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.#child = child;
    trackGroup(child.pid);
    this.#writer = child.stdin.getWriter();
    this.#exited = child.status.then((status) => {
      this.#exitStatus = status;
      this.#exitedOnItsOwn = !this.#closed;
      if (!this.#closed) this.#leaderDied(child.pid);
      return status;
    });
    this.#stderr = new StderrLog(child.stderr, {
      logPath: this.#opts.logPath,
      command: this.#opts.command,
      pid: child.pid,
      redact: this.#opts.redactLog,
      onerror: (err) => this.onerror?.(err),
    });
    this.#stdoutDone = this.#readStdout(child.stdout).finally(() => this.#finish());
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed || this.#exitStatus) {
      throw new Error("MCP server process is not running");
    }
    const write = this.#writer.write(this.#encoder.encode(serializeMessage(message)));
    this.#writes.add(write);
    try {
      await write;
    } finally {
      this.#writes.delete(write);
    }
  }

  /** Closes stdin, then TERM to the group, then KILL after 5 s; resolves when all is gone. */
  async close(): Promise<void> {
    if (!this.#child || this.#closed) return;
    this.#closed = true;
    const pgid = this.#child.pid;
    // Not awaited: a server that stopped reading stdin would block the close forever.
    this.#writer?.close().catch(() => {});
    const grace = this.#opts.stdinGraceMs ?? 500;
    let exited = await this.#waitExit(grace);
    // Even when the leader left on EOF, its group may still hold grandchildren.
    const term = signalGroup(pgid, "SIGTERM");
    if (term === "sent" || term === "failed") {
      if (!exited) exited = await this.#waitExit(KILL_AFTER_MS);
      if (term === "failed" || !exited || await this.#stragglers(pgid)) {
        if (signalGroup(pgid, "SIGKILL") === "failed" && !exited) this.#child.kill("SIGKILL");
      }
    }
    await this.#exited;
    untrackGroup(pgid);
    // What the server wrote to stderr last must reach the log before mopac exits;
    // bounded, in case something outside the group still holds the pipe.
    await finishedWithin(this.#stderr!.done, 1_000);
    await this.#finish();
  }

  /**
   * The leader died on its own (crash, kill): what it started must not linger, and the
   * connection is over even if a grandchild still holds stdout open.
   */
  #leaderDied(pgid: number): void {
    signalGroup(pgid, "SIGKILL");
    untrackGroup(pgid);
    // Let what it wrote last be read first, unless a grandchild keeps stdout open.
    void finishedWithin(this.#stdoutDone!, 200).then(() => this.#finish());
  }

  /** After TERM, gives members of the group up to KILL_AFTER_MS to leave. */
  async #stragglers(pgid: number): Promise<boolean> {
    const deadline = Date.now() + KILL_AFTER_MS;
    while (groupAlive(pgid)) {
      if (Date.now() >= deadline) return true;
      await systemClock.sleep(50);
    }
    return false;
  }

  async #waitExit(ms: number): Promise<boolean> {
    if (this.#exitStatus) return true;
    return await finishedWithin(this.#exited!, ms);
  }

  async #readStdout(stdout: ReadableStream<Uint8Array>): Promise<void> {
    try {
      await readMessages(stdout, {
        onmessage: (message) => this.onmessage?.(message),
        onerror: (err) => this.onerror?.(err),
      });
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #finished?: Promise<void>;
  /** Announces the close once; resolves when `onclose` has run. */
  #finish(): Promise<void> {
    // Writes to a dead child fail at once (EPIPE). Letting them fail before announcing
    // the close lets a request that never got out be told apart from one in flight;
    // the timer lets their rejections reach the SDK first.
    this.#finished ??= Promise.allSettled([...this.#writes]).then(() => systemClock.sleep(0)).then(
      () => this.onclose?.(),
    );
    return this.#finished;
  }
}
