/**
 * Signalling a whole process group: a child spawned with `detached: true` leads its
 * own group, so its grandchildren (`npx …`, `bash -c …`, `cmd &`) can be stopped with
 * it. `Deno.kill(-pgid)` needs unrestricted `--allow-run`; under a narrow grant
 * (`--allow-run=bash`) bash's `kill` builtin does the same. Synchronous on purpose:
 * it also serves exit paths where nothing async completes. Groups can be tracked so
 * that those still alive are killed when mopac exits.
 */

export type GroupSignal = "SIGTERM" | "SIGKILL";

/** What became of the attempt: delivered to at least one member, group gone, or impossible. */
export type SignalOutcome = "sent" | "gone" | "failed";

export function signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
  // Asked first: trying what is not granted would prompt on a terminal.
  if (mayRun()) {
    try {
      Deno.kill(-pgid, signal);
      return "sent";
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return "gone"; // ESRCH
      if (!(err instanceof Deno.errors.NotCapable)) return "failed";
    }
  }
  if (!mayRun("bash")) return "failed";
  // bash's kill exits 1 when no process of the group is left.
  const code = runBash(`kill -${signal.slice(3)} -- -${pgid}`);
  return code === 0 ? "sent" : code === 1 ? "gone" : "failed";
}

/** Whether Deno grants running `command` (any command when absent) without asking. */
function mayRun(command?: string): boolean {
  try {
    const desc: Deno.PermissionDescriptor = command ? { name: "run", command } : { name: "run" };
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Kills a child spawned with `detached: true` and everything in its group; where
 * the group cannot be signalled (Windows, no permission at all), the child alone.
 */
export function killTree(child: Deno.ChildProcess): void {
  if (Deno.build.os !== "windows" && signalGroup(child.pid, "SIGKILL") !== "failed") return;
  try {
    child.kill("SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Whether a live process of the group is left. Zombies do not count: they are dead
 * already, and orphans wait for init to reap them, which can take a second.
 */
export function groupAlive(pgid: number): boolean {
  if (!mayRun("bash")) return false;
  const script =
    `ps -eo pgid=,stat= | awk -v g=${pgid} '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'`;
  return runBash(script) === 0;
}

/** bash's exit code, or -1 when bash cannot run. */
function runBash(script: string): number {
  try {
    return new Deno.Command("bash", {
      args: ["-c", script],
      // A clean environment: Deno refuses to spawn with LD_PRELOAD and the like under a
      // narrow --allow-run; kill needs nothing from it, and without PATH bash searches
      // its built-in default (/usr/bin, /bin, …), where ps and awk are.
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync().code;
  } catch {
    return -1;
  }
}

// Groups still running when mopac exits without closing them (Deno.exit, an uncaught
// error) get SIGKILL from the unload handler, so nothing outlives mopac. The signal is
// sent synchronously: nothing async completes in `unload`.
const liveGroups = new Set<number>();
let unloadHooked = false;

/** Kill this group at exit unless `untrackGroup` is called first. */
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
