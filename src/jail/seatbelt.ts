/**
 * The macOS backend: `sandbox-exec` with a generated Seatbelt profile. Deny by
 * default; reads everywhere except hidden paths; writes only in the workspace (as
 * the plan's mounts say), the session's TMPDIR and the cache; processes see and
 * signal only their own sandbox; network only to the proxy, which listens on a
 * loopback port there (hosts mode), everything (all) or nothing (none).
 * macOS has no mount or network namespaces, so one difference stays: a server a
 * background job starts on loopback is reachable only in `all` mode.
 * This cannot run on Linux: the profile text is unit-tested, not executed, here.
 */
import type { JailPlan } from "./types.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export interface SeatbeltOptions {
  /** The session's private temporary folder (TMPDIR inside). */
  tmpDir: string;
  /** Hosts mode: the loopback port mopac's proxy listens on. */
  proxyPort?: number;
}

export function seatbeltProfile(plan: JailPlan, opts: SeatbeltOptions): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-fork)",
    "(allow process-exec)",
    "(allow process-info* (target same-sandbox))",
    "(allow signal (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    "(allow file-read*)",
    "(allow file-ioctl)",
  ];
  const again = [opts.tmpDir, ...(plan.cacheDir ? [plan.cacheDir] : [])];
  const writes = [...again];
  const readOnly: string[] = [];
  const hidden: string[] = [];
  for (const m of plan.mounts) {
    if (m.kind === "write") writes.push(m.path);
    else if (m.kind === "read-only") readOnly.push(m.path);
    else hidden.push(m.path);
  }
  lines.push(
    `(allow file-write* ${writes.map(subpath).join(" ")} (literal "/dev/null")` +
      ` (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
  );
  // Later rules win: read-only places inside writable ones, then hidden ones.
  if (readOnly.length) lines.push(`(deny file-write* ${readOnly.map(subpath).join(" ")})`);
  // The cache and the temporary folder are writable again inside a read-only data dir.
  lines.push(`(allow file-write* ${again.map(subpath).join(" ")})`);
  if (hidden.length) {
    lines.push(`(deny file-read* file-write* ${hidden.map(subpath).join(" ")})`);
  }
  switch (plan.network.mode) {
    case "all":
      lines.push("(allow network*)");
      break;
    case "hosts":
      lines.push(`(allow network-outbound (remote ip "localhost:${opts.proxyPort}"))`);
      break;
    case "none":
      break;
  }
  return lines.join("\n") + "\n";
}

function subpath(path: string): string {
  return `(subpath ${quote(path)})`;
}

/** An SBPL string literal. */
export function quote(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
