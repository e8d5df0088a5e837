/**
 * No jail: bash runs as mopac's own child (with `--sandbox off`, and where a test
 * calls the bash tool on its own). bash leads its own process group (`detached`),
 * so stopping it signals the whole tree.
 */
import { signalGroup, trackGroup, untrackGroup } from "../util/process_group.ts";
import type { ShellChild, ShellLauncher, ShellSpawn } from "./types.ts";

export function spawnDirect(spec: ShellSpawn): ShellChild {
  const child = new Deno.Command("bash", {
    args: spec.args,
    cwd: spec.cwd,
    clearEnv: true,
    env: spec.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  // Killed at exit if mopac has to end while it runs (a forced exit, an uncaught error).
  trackGroup(child.pid);
  return {
    pid: child.pid,
    status: child.status.then((s) => {
      untrackGroup(child.pid);
      return { code: s.code, signal: s.signal };
    }),
    stdout: child.stdout,
    stderr: child.stderr,
    signal: (sig) => void signalGroup(child.pid, sig),
  };
}

export const directLauncher: ShellLauncher = {
  backend: "none",
  env: { defaults: {}, forced: {} },
  spawn: spawnDirect,
  dispose: () => Promise.resolve(),
};
