/**
 * No jail: bash runs as mopac's own child (with `--sandbox off`, and where a test
 * calls the bash tool on its own). bash leads its own process group, so stopping it
 * signals the whole tree: through `setsid bash …` where mopac may run setsid (a plain
 * posix_spawn; setsid execs in place, so the pid is the group's), else `detached`,
 * for which Deno forks the whole runtime (~3 ms more a command).
 */
import { signalGroup, trackGroup, untrackGroup } from "../util/process_group.ts";
import type { ShellChild, ShellLauncher, ShellSpawn } from "./types.ts";

export function spawnDirect(spec: ShellSpawn): ShellChild {
  const setsid = setsidPath();
  const child = new Deno.Command(setsid ?? "bash", {
    args: setsid ? ["bash", ...spec.args] : spec.args,
    cwd: spec.cwd,
    clearEnv: true,
    env: spec.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: setsid === undefined,
  }).spawn();
  // Killed at exit if mopac has to end while it runs (a forced exit, an uncaught error).
  trackGroup(child.pid);
  let exited = false;
  return {
    pid: child.pid,
    status: child.status.then((s) => {
      exited = true;
      untrackGroup(child.pid);
      return { code: s.code, signal: s.signal };
    }),
    stdout: child.stdout,
    stderr: child.stderr,
    signal: (sig) => {
      // Right after the spawn setsid may not have made the group yet: then the one
      // process there is gets the signal (not yet reaped, so its pid is still ours).
      if (signalGroup(child.pid, sig) === "gone" && !exited) {
        try {
          child.kill(sig);
        } catch {
          // gone meanwhile
        }
      }
    },
  };
}

export const directLauncher: ShellLauncher = {
  backend: "none",
  env: { defaults: {}, forced: {} },
  spawn: spawnDirect,
  dispose: () => Promise.resolve(),
};

let setsid: { path?: string } | undefined;

/** setsid's path when it exists and Deno lets mopac run and see it without asking. */
function setsidPath(): string | undefined {
  setsid ??= { path: Deno.build.os === "windows" ? undefined : findSetsid() };
  return setsid.path;
}

function findSetsid(): string | undefined {
  for (const path of ["/usr/bin/setsid", "/bin/setsid"]) {
    try {
      const granted = (desc: Deno.PermissionDescriptor) =>
        Deno.permissions.querySync(desc).state === "granted";
      if (!granted({ name: "run", command: path }) || !granted({ name: "read", path })) continue;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}
