/**
 * The run's OS jail, from what `resolve.ts` chose: the preflight probe (it fails
 * closed with exit 2 when bash is offered and no jail works) and the launcher the
 * bash tool starts commands with. `--sandbox off` is said on stderr here and in the
 * `init` event.
 */
import { isAbsolute } from "node:path";
import {
  backendVersion,
  checkBackend,
  type JailInfo,
  type JailSettings,
  prepareJail,
  type ShellLauncher,
} from "../jail/mod.ts";
import { JailError } from "../util/errors.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { resolveProfile } from "../permission/profiles.ts";
import type { McpJails } from "../jail/mod.ts";
import { serverEnv } from "../mcp/server_env.ts";
import { jailedServer, serverNetwork } from "./jail_choice.ts";
import { isInside, PathGlobs } from "../permission/match.ts";
import { readEnv } from "../util/env.ts";
import type { ResolvedRun } from "./resolve_run.ts";

export interface RunJail {
  info: JailInfo;
  launcher: ShellLauncher;
  /** Rewrites MCP servers marked `sandbox` to start in the jail (the others pass as they are). */
  jailServers(servers: Record<string, McpServerConfig>): Promise<Record<string, McpServerConfig>>;
  /**
   * Ends the jail and the proxies of jailed MCP servers (the servers themselves end
   * with their transports, before this). Never throws.
   */
  close(): Promise<void>;
  /** The backend's version (what `--dry-run` shows). */
  version(): Promise<string | undefined>;
}

export async function startJail(
  resolved: ResolvedRun,
  warn: (line: string) => void,
  opts: { ephemeral: boolean },
): Promise<RunJail> {
  const prepared = await prepareJail({
    ...jailSettings(resolved, warn),
    persistCache: !opts.ephemeral,
  });
  if (prepared.info.backend === "off") {
    warn(
      "mopac: --sandbox off: the model's commands run without the OS jail " +
        "(full network, writes anywhere this user can)",
    );
  }
  return {
    ...prepared,
    version: () => backendVersion(prepared.info.backend),
    jailServers: (servers) => jailServers(servers, prepared.mcp, warn),
    close: async () => {
      await prepared.mcp?.dispose();
      await prepared.launcher.dispose();
    },
  };
}

async function jailServers(
  servers: Record<string, McpServerConfig>,
  jails: McpJails | undefined,
  warn: (line: string) => void,
): Promise<Record<string, McpServerConfig>> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, cfg] of Object.entries(servers)) {
    if (!jailedServer(cfg)) {
      out[name] = cfg;
      continue;
    }
    if (!jails) {
      warn(`mopac: --sandbox off: MCP server "${name}" runs without the OS jail`);
      out[name] = cfg;
      continue;
    }
    const jailed = await jails.wrap(
      { command: cfg.command!, args: cfg.args, env: cfg.env },
      serverNetwork(cfg),
      // What an unjailed server would get: the clean base, its env_vars, its env.
      serverEnv(cfg),
    );
    out[name] = {
      ...cfg,
      command: jailed.command,
      args: jailed.args,
      env: jailed.env,
      clear_env: jailed.clearEnv,
    };
  }
  return out;
}

function jailSettings(
  resolved: Pick<ResolvedRun, "loaded" | "profile" | "jail">,
  log: (line: string) => void,
): JailSettings {
  const { loaded, profile, jail } = resolved;
  const workspace = loaded.workspaceRoot;
  const deny = new PathGlobs(profile.paths.deny, { anyDepth: true });
  const addDirs = profile.paths.dirs ?? [];
  return {
    mode: jail.mode,
    needed: jail.needed,
    network: jail.network,
    workspace,
    dataDir: loaded.dataDir,
    writeGlobs: profile.paths.write,
    addDirs,
    denyGlobs: profile.paths.deny,
    // Relative deny globs hold in an --add-dir folder as in the workspace.
    denied: (path) =>
      deny.matches(path, workspace) ||
      addDirs.some((dir) => isInside(path, dir) && deny.matches(path, dir)),
    // Operator config files may hold keys; the project's are the model's to read anyway.
    hide: loaded.files.filter((f) => isAbsolute(f) && !isInside(f, workspace)),
    home: readEnv("HOME"),
    log,
    // A jailed MCP server in hosts mode needs socat inside its jail as bash does.
    socat: Object.values(loaded.config.mcp ?? {}).some((s) =>
      jailedServer(s) && serverNetwork(s).mode === "hosts"
    ),
  };
}

/**
 * `mopac sandbox --check`: the backend this machine would use, its version, and
 * whether the probe a run makes at preflight succeeds (ok false: a run would exit 2).
 */
export async function checkJail(
  resolved: Pick<ResolvedRun, "loaded" | "profile" | "jail">,
): Promise<{ ok: boolean; lines: string[] }> {
  const { jail } = resolved;
  const network = jail.network.mode === "hosts"
    ? `hosts (${jail.network.hosts.join(", ")})`
    : jail.network.mode;
  const lines = [
    `profile: ${resolved.profile.name} (bash ${jail.needed ? "offered" : "not offered"})`,
  ];
  lines.push(`network: ${network}`);
  if (jail.mode === "off") {
    lines.push("jail: off (--sandbox off or operator config): commands run unjailed");
    return { ok: true, lines };
  }
  try {
    const prepared = await prepareJail({
      ...jailSettings(resolved, () => {}),
      needed: true,
    });
    const version = await backendVersion(prepared.info.backend);
    lines.push(`backend: ${prepared.info.backend}${version ? ` ${version}` : ""}`);
    lines.push("probe: ok");
    await prepared.launcher.dispose();
    return { ok: true, lines };
  } catch (err) {
    if (!(err instanceof JailError)) throw err;
    lines.push("probe: failed");
    lines.push(`cause: ${err.message}`);
    if (err.hint) lines.push(`fix: ${err.hint}`);
    return { ok: false, lines };
  }
}

/**
 * The config's MCP servers with those marked `sandbox` moved into the OS jail, for
 * `mopac mcp …` (no run, no profile: the default profile's deny rules apply).
 * Fails closed like a run when a marked server exists and no jail works here.
 */
export async function jailedServersOf(
  loaded: LoadedConfig,
  warn: (line: string) => void,
): Promise<{ servers: Record<string, McpServerConfig>; close(): Promise<void> }> {
  const all = loaded.config.mcp ?? {};
  if (!Object.values(all).some(jailedServer)) return { servers: all, close: async () => {} };
  const profile = resolveProfile(undefined, loaded.config);
  const jail: ResolvedRun["jail"] = {
    mode: loaded.config.options?.sandbox ?? "on",
    network: { mode: "none" },
    needed: true,
  };
  await checkBackend(jail);
  const prepared = await prepareJail(jailSettings({ loaded, profile, jail }, warn));
  const servers = await jailServers(all, prepared.mcp, warn);
  return {
    servers,
    close: async () => {
      await prepared.mcp?.dispose();
      await prepared.launcher.dispose();
    },
  };
}
