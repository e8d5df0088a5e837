/**
 * The Linux backend: bubblewrap (`bwrap`), called directly. Every namespace is new
 * (user, mount, PID, network unless the profile says `all`, IPC, UTS, cgroup), no
 * capabilities (mopac may run as root), no further user namespaces inside. The
 * filesystem is the host's read-only, with a private /tmp and /run, then the plan's
 * mounts in order: writable places, read-only places inside them, hidden files.
 * Verified with bubblewrap 0.8.0 on kernel 6.18; order matters: `--tmpfs /tmp`
 * comes before a workspace bind under /tmp, or it would hide it.
 */
import type { JailPlan, NetworkPolicy } from "./types.ts";

export const BWRAP = "bwrap";

/** Where the proxy's Unix socket appears inside the jail (hosts mode). */
export const PROXY_SOCKET_IN_JAIL = "/run/mopac/proxy.sock";

/** Namespaces and privileges: the part the probe checks as well. */
export function namespaceArgs(network: NetworkPolicy): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (network.mode === "all") args.push("--share-net");
  args.push("--unshare-user", "--disable-userns", "--cap-drop", "ALL");
  return args;
}

/** The host read-only, private /dev, /proc, /tmp and /run (host sockets live in /run). */
export function baseMounts(): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/run",
  ];
}

export interface BwrapOptions {
  /** Host path of the proxy's socket, mounted at PROXY_SOCKET_IN_JAIL (hosts mode). */
  proxySocket?: string;
  /**
   * Paths that must stay visible (read-only) even when they live under /tmp or /run:
   * the supervisor, a jailed MCP server's files. Each must exist.
   */
  keep?: string[];
}

/** bwrap's arguments up to (not including) `--` and the command. */
export function bwrapArgs(plan: JailPlan, opts: BwrapOptions = {}): string[] {
  const args = [...namespaceArgs(plan.network), ...baseMounts()];
  for (const path of opts.keep ?? []) {
    if (/^\/(tmp|run)\//.test(path)) args.push("--ro-bind", path, path);
  }
  for (const m of plan.mounts) {
    switch (m.kind) {
      case "write":
        // -try: a folder removed since the plan was made is skipped, not fatal.
        args.push("--bind-try", m.path, m.path);
        break;
      case "read-only":
        args.push("--ro-bind-try", m.path, m.path);
        break;
      case "hide-file":
        args.push("--ro-bind", "/dev/null", m.path);
        break;
      case "hide-dir":
        args.push("--tmpfs", m.path, "--remount-ro", m.path);
        break;
    }
  }
  if (opts.proxySocket) args.push("--ro-bind", opts.proxySocket, PROXY_SOCKET_IN_JAIL);
  args.push("--chdir", plan.workspace);
  return args;
}

/** `bubblewrap 0.8.0` → "0.8.0"; undefined when bwrap cannot run. */
export async function bwrapVersion(): Promise<string | undefined> {
  try {
    const out = await runBwrapVersion();
    const text = new TextDecoder().decode(out.stdout).trim();
    return out.success ? text.replace(/^bubblewrap\s+/, "") || text : undefined;
  } catch {
    return undefined;
  }
}

/** `bwrap --version` as Deno runs it: throws NotFound where bwrap is not on PATH. */
export function runBwrapVersion(): Promise<Deno.CommandOutput> {
  return new Deno.Command(BWRAP, {
    args: ["--version"],
    clearEnv: true,
    env: { PATH: pathEnv() },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
}

/** PATH for bwrap and the programs it starts (from mopac's, when readable). */
export function pathEnv(): string {
  try {
    const path = Deno.env.get("PATH");
    if (path) return path;
  } catch {
    // not granted: the usual system folders
  }
  return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}
