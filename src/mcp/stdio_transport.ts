/**
 * MCP over a child's stdin/stdout (newline-delimited JSON-RPC). Written here rather
 * than taken from the SDK because the SDK's StdioClientTransport gives the child a
 * thin environment (TLS breaks for `deno run npm:` servers) and no process group, so
 * `npx`/`bash -c` grandchildren outlive it. Here the child inherits the whole
 * environment plus `env`, leads its own group, and its stderr goes to a log file.
 */
import { dirname } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { sleep, TIMED_OUT, within } from "./timing.ts";
import { groupAlive, signalGroup, trackGroup, untrackGroup } from "./process_group.ts";

export interface StdioOptions {
  command: string;
  args?: string[];
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
const STDERR_TAIL = 2_000;
/** Longest line read from stdout (in UTF-16 units): 64 Mi, room for a big image. */
const MAX_MESSAGE_CHARS = 64 * 1024 * 1024;
const MAX_SKIPPED_REPORTS = 20;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #opts: StdioOptions;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #exited?: Promise<Deno.CommandStatus>;
  #exitStatus?: Deno.CommandStatus;
  #stderrTail = "";
  #closed = false;
  #exitedOnItsOwn = false;
  #skippedLines = 0;
  #writes = new Set<Promise<void>>();
  #stdoutDone?: Promise<void>;
  #stderrDone?: Promise<void>;
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
    return this.#stderrTail.trim();
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
    await within(Promise.all([this.#exited, this.#stderrDone]), ms);
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("StdioTransport already started");
    const child = new Deno.Command(this.#opts.command, {
      args: this.#opts.args ?? [],
      // Deno.Command inherits the parent's environment; `env` is added on top of it.
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
    this.#stderrDone = this.#pumpStderr(child.stderr);
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
    await within(this.#stderrDone!, 1_000);
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
    void within(this.#stdoutDone!, 200).then(() => this.#finish());
  }

  /** After TERM, gives members of the group up to KILL_AFTER_MS to leave. */
  async #stragglers(pgid: number): Promise<boolean> {
    const deadline = Date.now() + KILL_AFTER_MS;
    while (groupAlive(pgid)) {
      if (Date.now() >= deadline) return true;
      await sleep(50);
    }
    return false;
  }

  async #waitExit(ms: number): Promise<boolean> {
    if (this.#exitStatus) return true;
    return (await within(this.#exited!, ms)) !== TIMED_OUT;
  }

  async #readStdout(stdout: ReadableStream<Uint8Array>): Promise<void> {
    // The pieces of an unfinished line are kept apart and joined once, at its newline:
    // re-scanning one growing buffer made a 40 MB answer take seconds.
    let parts: string[] = [];
    let size = 0;
    let discarding = false;
    try {
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        let start = 0;
        let nl: number;
        while ((nl = chunk.indexOf("\n", start)) >= 0) {
          parts.push(chunk.slice(start, nl));
          start = nl + 1;
          const line = discarding ? "" : parts.join("").replace(/\r$/, "");
          parts = [];
          size = 0;
          discarding = false;
          if (line.trim() !== "") this.#deliver(line);
        }
        if (discarding || start === chunk.length) continue;
        parts.push(chunk.slice(start));
        size += chunk.length - start;
        if (size > MAX_MESSAGE_CHARS) {
          // Unbounded, one line would take all memory: it is skipped up to its newline.
          parts = [];
          discarding = true;
          this.onerror?.(
            new Error(
              `a line of more than ${MAX_MESSAGE_CHARS} characters on stdout was discarded`,
            ),
          );
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      // Servers that print logs to stdout: skip the line, keep the connection. Only the
      // first few are reported, or a chatty server would bury every other warning.
      const n = ++this.#skippedLines;
      if (n > MAX_SKIPPED_REPORTS) return;
      const more = n === MAX_SKIPPED_REPORTS ? " (further such lines are not reported)" : "";
      this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 200)}${more}`));
      return;
    }
    this.onmessage?.(message);
  }

  async #pumpStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    let file: Deno.FsFile | undefined;
    try {
      // The data dir's logs/ folder does not exist before the first server logs there.
      await Deno.mkdir(dirname(this.#opts.logPath), { recursive: true });
      file = await Deno.open(this.#opts.logPath, { append: true, create: true });
      const header = `--- ${
        new Date().toISOString()
      } started ${this.#opts.command} (pid ${this.#child?.pid})\n`;
      await file.write(this.#encoder.encode(header));
    } catch (err) {
      this.onerror?.(new Error(`cannot open ${this.#opts.logPath}: ${(err as Error).message}`));
    }
    const decoder = new TextDecoder();
    const redact = this.#opts.redactLog;
    // With redaction, whole lines only: a secret split over two chunks must still match.
    let line = "";
    const write = async (text: string) => {
      if (file && text) {
        await writeAll(file, this.#encoder.encode(redact!(text))).catch(() => file = undefined);
      }
    };
    try {
      for await (const chunk of stderr) {
        const text = decoder.decode(chunk, { stream: true });
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL);
        if (!redact) {
          if (file) await writeAll(file, chunk).catch(() => file = undefined);
          continue;
        }
        line += text;
        const end = line.lastIndexOf("\n") + 1;
        // A line longer than the tail cap is written as it is rather than held forever.
        const cut = end > 0 ? end : line.length > STDERR_TAIL * 32 ? line.length : 0;
        await write(line.slice(0, cut));
        line = line.slice(cut);
      }
    } catch {
      // The pipe broke with the process; nothing more to log.
    } finally {
      if (redact) await write(line + decoder.decode());
      file?.close();
    }
  }

  #finished?: Promise<void>;
  /** Announces the close once; resolves when `onclose` has run. */
  #finish(): Promise<void> {
    // Writes to a dead child fail at once (EPIPE). Letting them fail before announcing
    // the close lets a request that never got out be told apart from one in flight;
    // the timer lets their rejections reach the SDK first.
    this.#finished ??= Promise.allSettled([...this.#writes]).then(() => sleep(0)).then(() =>
      this.onclose?.()
    );
    return this.#finished;
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
}
