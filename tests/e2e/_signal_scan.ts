/**
 * The signal scan (issue 16): `mopac run` with a stdio MCP server configured gets
 * SIGINT or SIGTERM at a given moment after it was spawned, and every moment is
 * sorted by how the run ended. Shared by tests/e2e/signal_scan_test.ts (the suite's
 * scan) and tests/bench/signal_scan_bench.ts (the full-size one, which prints counts).
 *
 * Outcomes:
 * - `handled`: exit 130/143 and a `result` of subtype `cancelled` with that exit code
 *   as the last thing on stdout (json and stream-json);
 * - `before_runtime`: the signal came before Deno ran main.ts's first line (mopac's
 *   listener was not yet installed when it was sent, read from /proc/<pid>/status),
 *   so the default action ended the process: exit status 128+N, nothing on stdout;
 * - `finished_first`: the run had ended before the signal was sent (moment too late), or
 *   its `result` was out and it exited within LATE_MS of the signal: the ending was
 *   settled (a signal after the `result` no longer changes the exit code);
 * - `wrong`: anything else, with the details. A scan passes when none is `wrong` and
 *   no process of the MCP server's group is left.
 */
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import type { ParsedRequest } from "../_support/fake_openai.ts";
import { spawnMopac } from "../_support/run_mopac.ts";
import { live, mcpWorkspace, wrappedServer } from "./_mcp_run.ts";
import { FAKE_ENV, type Workspace } from "../_support/workspace.ts";

export type Signal = "SIGINT" | "SIGTERM";
export type Outcome = "handled" | "before_runtime" | "finished_first" | "wrong";

export interface Moment {
  ms: number;
  signal: Signal;
  output: "json" | "stream-json";
}

export interface MomentResult extends Moment {
  outcome: Outcome;
  code: number;
  /** Why a `wrong` moment is wrong (exit code, stdout tail, stderr, leftovers). */
  detail?: string;
}

const EXIT: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };
/** A run that exits this soon after the signal, with its success result out, had ended. */
const LATE_MS = 100;
/**
 * Bit of SIGWINCH (28) in /proc/<pid>/status SigCgt (bit n-1 for signal n): the mark
 * util/interrupts.ts sets with its listeners. Deno itself catches SIGINT and SIGTERM
 * from its start (and takes their default action while no script listens), so their
 * own bits cannot say whether mopac listens yet.
 */
const LISTENING_BIT = 1n << 27n;

export interface ScanWorkspace {
  ws: Workspace;
  marker: string;
  close(): Promise<void>;
}

/**
 * A workspace whose runs start a stdio MCP server (behind `bash -c`, with a marked
 * `sleep` in its group), call its tool once and stream a short answer: start-up, a
 * request, an MCP call, a second request and the end of the run are all moments.
 */
export async function scanWorkspace(): Promise<ScanWorkspace> {
  const marker = `${Math.floor(Math.random() * 1e6)}.916`;
  const turns = (req: ParsedRequest) => {
    const lastTool = req.messages.at(-1)?.role === "tool";
    return lastTool
      ? scriptText("The server echoed it back; nothing else to do here.", {
        chunkSize: 4,
        delayMs: 15,
      })
      : scriptToolCall("mcp_wrapped_echo", { text: "ping" }, undefined, {
        text: "Asking the server.",
        chunkSize: 4,
        delayMs: 15,
      });
  };
  const ws = await mcpWorkspace(turns, { wrapped: wrappedServer(marker) });
  return { ws, marker, close: () => ws.close() };
}

/** How long an undisturbed run takes from spawn to exit (ms), checking that it succeeds. */
export async function baselineMs(scan: ScanWorkspace): Promise<number> {
  const t0 = performance.now();
  const child = spawnMopac(["run", "-o", "json", "go"], {
    cwd: scan.ws.dir,
    perms: scan.ws.perms,
    env: FAKE_ENV,
  });
  const out = await child.output();
  const ms = performance.now() - t0;
  const stdout = new TextDecoder().decode(out.stdout);
  if (out.code !== 0 || !stdout.includes('"subtype":"success"')) {
    throw new Error(
      `baseline run failed (exit ${out.code}): ${stdout}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return ms;
}

/** Whether mopac's listener for `signal` is in place; undefined where /proc cannot say. */
export function catches(pid: number, _signal: Signal): boolean | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const hex = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    return hex === undefined ? undefined : (BigInt(`0x${hex}`) & LISTENING_BIT) !== 0n;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One moment: spawn, wait, signal, sort the ending. */
export async function scanMoment(scan: ScanWorkspace, m: Moment): Promise<MomentResult> {
  const child = spawnMopac(["run", "-o", m.output, "go"], {
    cwd: scan.ws.dir,
    perms: scan.ws.perms,
    env: FAKE_ENV,
  });
  const output = child.output();
  let exited = false;
  let exitedAt = 0;
  void child.status.then(() => {
    exited = true;
    exitedAt = performance.now();
  });
  let sentAt = 0;
  if (m.ms > 0) await sleep(m.ms);
  let caught: boolean | undefined;
  let sent = false;
  if (!exited) {
    caught = catches(child.pid, m.signal);
    try {
      child.kill(m.signal);
      sent = true;
      sentAt = performance.now();
    } catch {
      // Exited meanwhile.
    }
  }
  const out = await output;
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const base = { ...m, code: out.code };
  const leftovers = await leftoverProcesses([scan.marker, scan.ws.dir]);
  const wrong = (why: string): MomentResult => ({
    ...base,
    outcome: "wrong",
    detail:
      `${why}; exit ${out.code}, signal ${out.signal}, stdout tail ${
        JSON.stringify(stdout.slice(-300))
      }, stderr ${JSON.stringify(stderr.slice(-500))}` +
      (leftovers.length ? `, left running: ${leftovers.join(" | ")}` : ""),
  });
  if (leftovers.length > 0) return wrong("processes left behind");
  const result = lastResult(stdout);
  if (!sent) {
    return out.code === 0 ? { ...base, outcome: "finished_first" } : wrong("ended on its own");
  }
  // The signal came as mopac was exiting: its result was written (the ending settled) and
  // the process ended right away. A signal ignored mid-run leaves the rest of the run to go.
  if (
    out.code === 0 && result?.subtype === "success" && result.exit_code === 0 &&
    exitedAt - sentAt < LATE_MS
  ) {
    return { ...base, outcome: "finished_first" };
  }
  if (
    out.code === EXIT[m.signal] && result?.subtype === "cancelled" &&
    result.exit_code === EXIT[m.signal] && (m.output === "stream-json" || oneLine(stdout))
  ) {
    return { ...base, outcome: "handled" };
  }
  // Killed by the default action: allowed only if mopac had no listener when it was sent.
  if (out.signal === m.signal && stdout === "" && caught !== true) {
    return { ...base, outcome: "before_runtime" };
  }
  return wrong(caught ? "mopac was listening when the signal was sent" : "unexpected ending");
}

function lastResult(stdout: string): Record<string, unknown> | undefined {
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  try {
    const last = JSON.parse(lines.at(-1) ?? "");
    return last?.type === "result" ? last : undefined;
  } catch {
    return undefined;
  }
}

const oneLine = (stdout: string) => stdout.trimEnd().split("\n").length === 1;

/**
 * Live processes after mopac exited: of the server's group (its marker) or naming the
 * workspace (a jail, a command). Killed ones can take a moment to go, so the check
 * waits a little for them before it counts them.
 */
async function leftoverProcesses(markers: string[]): Promise<string[]> {
  const find = async () => (await Promise.all(markers.map(live))).flat();
  const deadline = Date.now() + 5_000;
  let rows = await find();
  while (rows.length > 0 && Date.now() < deadline) {
    await sleep(50);
    rows = await find();
  }
  for (const row of rows) {
    try {
      Deno.kill(-Number(row.trim().split(/\s+/)[1]), "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  return rows;
}

/**
 * Moments from 0 to `endMs`: `startup` of them in the first `startupMs` (where the
 * listener gaps of issue 16 were), the rest spread over the whole run. Signals and
 * output formats alternate.
 */
export function moments(opts: {
  startup: number;
  startupMs: number;
  rest: number;
  endMs: number;
}): Moment[] {
  const times: number[] = [];
  for (let i = 0; i < opts.startup; i++) {
    times.push(Math.round((i * opts.startupMs) / opts.startup));
  }
  for (let i = 0; i < opts.rest; i++) {
    times.push(Math.round(opts.startupMs + ((i + 1) * (opts.endMs - opts.startupMs)) / opts.rest));
  }
  return times.map((ms, i) => ({
    ms,
    signal: i % 2 === 0 ? "SIGTERM" : "SIGINT",
    output: i % 4 < 2 ? "stream-json" : "json",
  }));
}

/**
 * Scans the moments, `parallel` runs at a time, each worker in its own workspace (its
 * own fake provider and server marker, so leftovers are told apart).
 */
export async function scan(
  list: Moment[],
  parallel: number,
  onResult: (r: MomentResult) => void = () => {},
): Promise<MomentResult[]> {
  const results: MomentResult[] = [];
  let next = 0;
  const worker = async () => {
    const s = await scanWorkspace();
    try {
      while (next < list.length) {
        const r = await scanMoment(s, list[next++]);
        results.push(r);
        onResult(r);
      }
    } finally {
      await s.close();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results.sort((a, b) => a.ms - b.ms);
}

export function counts(results: MomentResult[]): Record<Outcome, number> {
  const c: Record<Outcome, number> = {
    handled: 0,
    before_runtime: 0,
    finished_first: 0,
    wrong: 0,
  };
  for (const r of results) c[r.outcome]++;
  return c;
}
