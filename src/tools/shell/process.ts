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
    // The directory, then `L` and `export -p`'s listing, or `V` and NAME=value fields,
    // then the end mark. Without the mark the state was cut short (or not listed), and
    // a listing that does not read is no state either: the session keeps what it had.
    const fields = this.#channel.slice(at + this.#marker.length).split("\0");
    if (fields.length < 4 || fields.at(-1) !== "" || fields.at(-2) !== "MOPAC_END") return;
    const [cwd, form] = fields;
    const body = fields.slice(2, -2);
    const env = form === "L"
      ? readListing(body.join("\0"))
      : form === "V"
      ? readFields(body)
      : undefined;
    if (env) this.state = { cwd, env };
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

/** Every variable name, listed without a subshell: `${!A*}` expands to the names starting with A. */
const ALL_NAMES = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"].map((c) =>
  `\${!${c}*}`
)
  .join(" ");

/**
 * The user's command after a one-line prelude: keep the original stderr as fd 9,
 * send stderr to stdout, and report directory and exports on exit. Only bash
 * builtins are used (`builtin`, so functions of the same name do not answer), so a
 * command that breaks PATH still reports its state, and nothing is forked.
 *
 * The exports: on bash ≥ 5.2 in a C or UTF-8 locale, `export -p`'s listing
 * (export_listing.ts reads it back; one builtin instead of ~1.7 ms of walking every
 * name). Older bash quotes differently, and in other multibyte locales (Big5, GBK,
 * SJIS) a character's second byte can be a backslash the reader would misplace, so
 * there each name is walked: `${!name@a}` tells exported ones on bash ≥ 4.4, older
 * bash (macOS's 3.2) lists them with `compgen -e`. A failed `export -p` (`enable -n`)
 * writes no end mark: no state.
 */
function wrapScript(command: string, marker: string): string {
  const m = marker.replaceAll("\0", "\\0");
  const emit = `builtin printf '%s=%s\\0' "$__mopac_n" "\${!__mopac_n}"`;
  const listing = `builtin printf 'L\\0'; builtin export -p && builtin printf '\\0MOPAC_END\\0'`;
  const walk = `builtin printf 'V\\0'; ` +
    `if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)); then ` +
    `for __mopac_n in ${ALL_NAMES}; do [[ \${!__mopac_n@a} == *x* ]] && ${emit}; done; ` +
    `else for __mopac_n in $(compgen -e); do ${emit}; done; fi; ` +
    `builtin printf 'MOPAC_END\\0'`;
  const save =
    `__mopac_save() { set +eu; local __mopac_n= IFS=$' \\t\\n'; { builtin printf '${m}%s\\0' "$PWD"; ` +
    `case "\${LC_ALL:-\${LC_CTYPE:-\${LANG:-C}}}" in ` +
    `C|POSIX|C.*|*.UTF-8|*.utf-8|*.UTF8|*.utf8) ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 502)) && __mopac_n=L;; esac; ` +
    `if [[ $__mopac_n == L ]]; then ${listing}; else ${walk}; fi; } >&9 2>/dev/null; }`;
  return `${save}; trap __mopac_save EXIT; exec 9>&2 2>&1\n${command}\n`;
}

/** `export -p`'s listing, read back; undefined when it does not read. */
function readListing(text: string): Record<string, string> | undefined {
  try {
    return parseExportListing(text);
  } catch {
    return undefined;
  }
}

/** NAME=value fields, one per exported variable. */
function readFields(fields: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const field of fields) {
    const eq = field.indexOf("=");
    if (eq > 0) env[field.slice(0, eq)] = field.slice(eq + 1);
  }
  return env;
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
