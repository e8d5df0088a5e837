/**
 * MCP server groups still running when mopac exits without `close()` (Deno.exit, an
 * uncaught error) get SIGKILL from the unload handler, so nothing outlives mopac.
 * The signal is sent synchronously: nothing async completes in `unload`.
 */
import { signalGroup } from "../util/process_group.ts";

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
