/**
 * One run of a command in real bash, started by a launcher: directly, or inside the
 * session's OS jail. bash is its own process-group leader, so stopping it (timeout,
 * cancel, job_kill, exit) signals the whole tree. Output: stderr is merged into stdout inside bash (`exec 2>&1`), so the
 * model sees both in the order they were written. The original stderr pipe is kept
 * as a private channel (fd 9) on which an EXIT trap reports the final directory and
 * exported variables, so they can carry over to the next command.
 */
import { OutputBuffer, type OutputLimits } from "./output.ts";
import { parseExportListing } from "./export_listing.ts";
import { finishedWithin } from "../../util/wait.ts";
import { directLauncher } from "../../jail/direct.ts";
import type { ShellChild, ShellLauncher } from "../../jail/types.ts";

export interface ExitInfo {
  code: number;
  signal: Deno.Signal | null;
}

/** Directory and exported variables when the command ended. */
export interface FinalState {
  cwd: string;
  env: Record<string, string>;
}

export interface SpawnOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Stop the command (whole group) after this long. */
  timeoutMs?: number;
  outputLimits?: OutputLimits;
  /** How long to wait for output pipes after bash exited (a background child may hold them). */
  drainMs?: number;
  /** Between SIGTERM and SIGKILL when stopping. */
  killGraceMs?: number;
  /** Where bash runs (default: directly, no jail). */
  launcher?: ShellLauncher;
}

const CHANNEL_LIMIT = 4 << 20;

export type StopReason = "timeout" | "aborted" | "killed" | "disposed";

export class ShellProcess {
  readonly output: OutputBuffer;
  readonly command: string;
  readonly startedAt = Date.now();
  /** Resolves when bash has exited and its output was read. */
  readonly finished: Promise<ExitInfo>;
  exit?: ExitInfo;
  state?: FinalState;
  /** Set when stopped by mopac rather than ending on its own. */
  stoppedBy?: StopReason;
  /** A process started in the background by the command still holds the output pipe. */
  lingering = false;

  readonly #child: ShellChild;
  readonly #marker = `\0MOPAC_STATE_${crypto.randomUUID().slice(0, 8)}\0`;
  #channel = "";
  #timer?: ReturnType<typeof setTimeout>;
  readonly #killGraceMs: number;

  constructor(opts: SpawnOptions) {
    this.command = opts.command;
    this.output = new OutputBuffer(opts.outputLimits);
    this.#killGraceMs = opts.killGraceMs ?? 500;
    this.#child = (opts.launcher ?? directLauncher).spawn({
      args: ["-c", wrapScript(opts.command, this.#marker)],
      cwd: opts.cwd,
      env: opts.env,
    });
    const out = pump(this.#child.stdout, (s) => this.output.append(s));
    const channel = pump(this.#child.stderr, (s) => {
      // Only the end matters (the state is written last); a command writing to fd 9 is cut.
      this.#channel = (this.#channel + s).slice(-CHANNEL_LIMIT);
    });
    if (opts.timeoutMs !== undefined) {
      this.#timer = setTimeout(() => void this.stop("timeout"), opts.timeoutMs);
    }
    this.finished = this.#finish(out, channel, opts.drainMs ?? 100);
  }

  async #finish(out: Promise<void>, channel: Promise<void>, drainMs: number): Promise<ExitInfo> {
    const status = await this.#child.status;
    clearTimeout(this.#timer);
    const drained = await finishedWithin(Promise.all([out, channel]), drainMs);
    this.lingering = !drained;
    this.#readChannel();
    this.exit = { code: status.code, signal: status.signal };
    return this.exit;
  }

  /** Splits the private channel into bash's own early messages and the final state. */
  #readChannel(): void {
    const at = this.#channel.indexOf(this.#marker);
    const before = at < 0 ? this.#channel : this.#channel.slice(0, at);
    if (before) this.output.append(before);
    if (at < 0) return;
    // The directory, NUL, `export -p`'s listing, NUL, the end mark: without the mark
    // the state was cut short, and a listing that does not read is no state either.
    const rest = this.#channel.slice(at + this.#marker.length);
    const cwdEnd = rest.indexOf("\0");
    const listingEnd = rest.lastIndexOf(END_MARK);
    if (cwdEnd < 0 || listingEnd < cwdEnd || rest.slice(listingEnd + END_MARK.length) !== "") {
      return;
    }
    const env = parseExportListing(rest.slice(cwdEnd + 1, listingEnd));
    if (env) this.state = { cwd: rest.slice(0, cwdEnd), env };
  }

  /** Ends the whole process group: SIGTERM, then SIGKILL after a grace period. */
  async stop(reason: StopReason): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    this.stoppedBy ??= reason;
    clearTimeout(this.#timer);
    this.#child.signal("SIGTERM");
    await finishedWithin(this.#child.status, this.#killGraceMs);
    // Also after bash is gone: children that ignored SIGTERM are still in the group.
    this.#child.signal("SIGKILL");
    return await this.finished;
  }

  /** Kills what is left of the group (background children of a finished command). */
  killLeftovers(): void {
    this.#child.signal("SIGKILL");
  }

  /** bash never started: its folder does not exist where it runs (inside a jail). */
  get missingCwd(): boolean {
    return this.#child.missingCwd === true;
  }

  /** The process id where bash runs (inside the jail's PID namespace when jailed). */
  get pid(): number {
    return this.#child.pid;
  }
}

const END_MARK = "\0MOPAC_END\0";

/**
 * The user's command after a one-line prelude: keep the original stderr as fd 9,
 * send stderr to stdout, and report directory and exports on exit. Only bash
 * builtins are used (`builtin`, so functions of the same name do not answer), so a
 * command that breaks PATH still reports its state, and nothing is forked: the
 * exports are `export -p`'s listing (export_listing.ts reads it back).
 */
function wrapScript(command: string, marker: string): string {
  const m = marker.replaceAll("\0", "\\0");
  const save = `__mopac_save() { set +eu; { builtin printf '${m}%s\\0' "$PWD"; ` +
    `builtin export -p; builtin printf '\\0MOPAC_END\\0'; } >&9 2>/dev/null; }`;
  return `${save}; trap __mopac_save EXIT; exec 9>&2 2>&1\n${command}\n`;
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  sink: (text: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }));
  } catch {
    // The pipe broke (process killed): keep what arrived.
  }
  sink(decoder.decode());
}
