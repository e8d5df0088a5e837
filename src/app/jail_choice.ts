/**
 * How a run's OS jail is chosen, from config alone (no probe, nothing started):
 * on or off (`options.sandbox`, from operator layers only: config/load.ts drops it
 * from project files), the bash network of the profile, whether anything needs a
 * jail at all, and which MCP servers the operator marked `sandbox`.
 */
import type { LoadedConfig } from "../config/mod.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import { transportKind } from "../mcp/config.ts";
import type { NetworkInput } from "../permission/config_shape.ts";
import type { Profile } from "../permission/profiles.ts";
import type { NetworkPolicy, SandboxMode } from "../jail/mod.ts";

export interface JailChoice {
  mode: SandboxMode;
  network: NetworkPolicy;
  /** bash can run in this run (its profile's or a sub-agent's), or a marked MCP server starts. */
  needed: boolean;
}

export function jailChoice(
  loaded: LoadedConfig,
  profile: Profile,
  servers: Record<string, McpServerConfig>,
  subAgentProfile?: Profile,
): JailChoice {
  const mode = loaded.config.options?.sandbox ?? "on";
  const needed = profile.tools.has("bash") || subAgentProfile?.tools.has("bash") === true ||
    Object.values(servers).some(jailedServer);
  return { mode, network: networkPolicy(profile.bash?.network), needed };
}

/** `bash.network` as config writes it → the jail's policy ("none" when absent). */
export function networkPolicy(value: NetworkInput | undefined): NetworkPolicy {
  if (value === "all") return { mode: "all" };
  if (typeof value === "object" && value !== null) return { mode: "hosts", hosts: value.hosts };
  return { mode: "none" };
}

/** A stdio server the operator asked to run in the OS jail. */
export function jailedServer(s: McpServerConfig): boolean {
  return transportKind(s) === "stdio" && s.sandbox !== undefined && s.sandbox !== false;
}

/** A jailed server's network: `sandbox: true` is none. */
export function serverNetwork(s: McpServerConfig): NetworkPolicy {
  return networkPolicy(typeof s.sandbox === "object" ? s.sandbox.network : undefined);
}
