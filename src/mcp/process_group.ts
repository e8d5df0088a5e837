/**
 * Signals a whole process group. MCP servers run in their own group (spawned with
 * `detached: true`) so that `npx …` or `bash -c …` grandchildren die with them.
 * `Deno.kill(-pgid)` needs unrestricted `--allow-run`; under a narrowed
 * `--allow-run=bash,…` the same is done by asking bash's `kill` builtin.
 */

export type GroupSignal = "SIGTERM" | "SIGKILL";

/** What became of the attempt: delivered to at least one member, group gone, or impossible. */
export type SignalOutcome = "sent" | "gone" | "failed";

export function signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
  try {
    Deno.kill(-pgid, signal);
    return "sent";
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "gone"; // ESRCH
    if (!(err instanceof Deno.errors.NotCapable)) return "failed";
  }
  return signalViaBash(pgid, signal);
}

/**
 * Whether a live process of the group is left. Zombies do not count: they are dead
 * already, and orphans wait for init to reap them, which can take a second.
 */
export function groupAlive(pgid: number): boolean {
  const script =
    `ps -eo pgid=,stat= | awk -v g=${pgid} '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'`;
  return runBash(script) === 0;
}

function signalViaBash(pgid: number, signal: GroupSignal): SignalOutcome {
  const code = bashKill(pgid, signal === "SIGKILL" ? "KILL" : "TERM");
  if (code === 0) return "sent";
  if (code === 1) return "gone";
  return "failed";
}

/**
 * Synchronous on purpose: it also runs from the `unload` handler, where nothing async
 * completes. Returns bash's exit code (1 = no such group), or -1 when bash cannot run.
 */
function bashKill(pgid: number, sig: string): number {
  return runBash(`kill -${sig} -- -${pgid}`);
}

function runBash(script: string): number {
  try {
    const out = new Deno.Command("bash", {
      args: ["-c", script],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return out.code;
  } catch {
    return -1;
  }
}

/**
 * Groups still running when the process exits without `close()` (Deno.exit, an
 * uncaught error) get SIGKILL from the unload handler, so nothing outlives mopac.
 */
const liveGroups = new Set<number>();
let unloadHooked = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (unloadHooked) return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const g of liveGroups) signalGroup(g, "SIGKILL");
    liveGroups.clear();
  });
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
