/**
 * The OS jail, as the rest of mopac uses it: which backend this machine has, the
 * preflight that fails closed (JailError, exit 2) when bash is offered and no jail
 * works, the launcher that runs bash commands in the session's jail, and the Deno
 * permissions the jail needs from mopac (bwrap in --allow-run, the allowed hosts in
 * --allow-net for the proxy). Deno's permission flags confine mopac itself; the jail
 * confines the processes the model starts. `--sandbox off` (operator only) skips it.
 */
import { directLauncher } from "./direct.ts";
import { JailLauncher } from "./launcher.ts";
import { McpJails } from "./mcp.ts";
import { type PlanInput, surveyRequest } from "./plan.ts";
import {
  type Backend,
  backendFor,
  missingBackend,
  noBackendError,
  probeLinux,
  probeMacos,
} from "./probe.ts";
import { BWRAP, bwrapVersion } from "./bwrap.ts";
import { SANDBOX_EXEC } from "./seatbelt.ts";
import type { NetworkPolicy, ShellLauncher } from "./types.ts";

export type { NetworkPolicy, ShellLauncher } from "./types.ts";
export type { JailedCommand, McpJails } from "./mcp.ts";
export { directLauncher } from "./direct.ts";
export { SUPERVISOR_COMMAND } from "./command_name.ts";

/** `on` (default): bash runs jailed or not at all. `off`: unjailed, said on stderr and in init. */
export type SandboxMode = "on" | "off";

/** What `init`, `--dry-run` and `sandbox --check` say about the jail. */
export interface JailInfo {
  /** "bwrap" | "sandbox-exec" | "off" (operator's --sandbox off) | "none" (no bash offered). */
  backend: string;
  network: NetworkPolicy["mode"];
  version?: string;
  hosts?: readonly string[];
}

export interface JailSettings extends Omit<PlanInput, "survey"> {
  mode: SandboxMode;
  /** Probe for socat even when bash's own network is not `hosts` (jailed MCP servers). */
  socat?: boolean;
  /** The profile offers bash (or its jobs): otherwise nothing is jailed and nothing is probed. */
  needed: boolean;
  log: (line: string) => void;
  os?: typeof Deno.build.os;
}

export interface PreparedJail {
  info: JailInfo;
  launcher: ShellLauncher;
  /** Jails for MCP servers marked `sandbox`; absent with --sandbox off or nothing to jail. */
  mcp?: McpJails;
}

/**
 * The preflight: checks that a jail works here (one probe) and returns the launcher
 * for the run's bash tool. Throws JailError when bash is offered and none works.
 */
export async function prepareJail(settings: JailSettings): Promise<PreparedJail> {
  const network = settings.network;
  const base = {
    network: network.mode,
    ...(network.mode === "hosts" ? { hosts: network.hosts } : {}),
  };
  if (!settings.needed) return { info: { backend: "none", ...base }, launcher: directLauncher };
  if (settings.mode === "off") {
    return { info: { backend: "off", ...base }, launcher: directLauncher };
  }
  const os = settings.os ?? Deno.build.os;
  const backend = backendFor(os);
  if (!backend) throw noBackendError(os);
  let survey;
  if (backend === "bwrap") {
    survey = await probeLinux(
      network,
      surveyRequest(settings.home, settings.denyGlobs),
      settings.socat === true,
    );
  } else {
    await probeMacos();
  }
  const launcher = new JailLauncher({
    backend,
    plan: { ...settings, survey },
    log: settings.log,
  });
  const mcp = new McpJails({ backend, plan: { ...settings, survey }, log: settings.log });
  return { info: { backend, ...base }, launcher, mcp };
}

/**
 * Runs before Deno's permission preflight: a jail that cannot exist here (no backend
 * for this OS, bwrap not installed) is named as such, not as a missing flag.
 */
export async function checkBackend(opts: {
  mode: SandboxMode;
  needed: boolean;
  os?: typeof Deno.build.os;
}): Promise<void> {
  if (!opts.needed || opts.mode === "off") return;
  const os = opts.os ?? Deno.build.os;
  const backend = backendFor(os);
  if (!backend) throw noBackendError(os);
  const missing = await missingBackend(backend);
  if (missing) throw missing;
}

/** The program that starts jailed processes on this OS (what Deno must let mopac run). */
export function jailCommand(os: typeof Deno.build.os = Deno.build.os): string | undefined {
  const backend = backendFor(os);
  return backend === "bwrap" ? BWRAP : backend === "sandbox-exec" ? SANDBOX_EXEC : undefined;
}

/** The backend's version, for `sandbox --check` and `--dry-run`. */
export async function backendVersion(backend: string): Promise<string | undefined> {
  return backend === "bwrap" ? await bwrapVersion() : undefined;
}

/** Deno permission needs of the jail, in the shape of permission/sandbox.ts's `Need`. */
export type JailNeed =
  | { kind: "run"; command: string; why: string }
  | { kind: "net"; host?: string; why: string };

/**
 * What mopac needs from Deno to jail this run: the backend in --allow-run and, in
 * hosts mode, a loopback port for the proxy and the allowed hosts in --allow-net
 * (the proxy connects on the jail's behalf; a wildcard host needs the whole network,
 * Deno has no wildcards). Both socats are started by bwrap, never by mopac itself,
 * so Deno never needs to allow socat.
 */
export function jailNeeds(opts: {
  mode: SandboxMode;
  needed: boolean;
  network: NetworkPolicy;
  os?: typeof Deno.build.os;
  why?: string;
}): JailNeed[] {
  if (!opts.needed || opts.mode === "off") return [];
  const backend: Backend | undefined = backendFor(opts.os ?? Deno.build.os);
  if (!backend) return [];
  const why = opts.why ?? "the bash tool's OS jail";
  const needs: JailNeed[] = [
    { kind: "run", command: backend === "bwrap" ? BWRAP : SANDBOX_EXEC, why },
  ];
  if (opts.network.mode === "hosts") {
    const proxyWhy = "bash.network.hosts (the jail's proxy)";
    // The proxy listens on a free loopback port; this grants that and no connection.
    needs.push({ kind: "net", host: "127.0.0.1:0", why: proxyWhy });
    if (opts.network.hosts.some((h) => h.includes("*"))) needs.push({ kind: "net", why: proxyWhy });
    else {
      for (const host of opts.network.hosts) {
        needs.push({ kind: "net", host: host.toLowerCase(), why: proxyWhy });
      }
    }
  }
  return needs;
}
