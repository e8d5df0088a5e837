/**
 * Deno's permissions, which confine mopac's own process (the OS jail, which confines
 * the processes the model starts, is another matter). From what a run will use (data
 * dir, config files, workspace, providers, MCP servers, offered tools, env vars) this
 * derives the Deno permissions it cannot do without, checks them at start
 * (`preflight`, exit 2 naming the flag to add) and prints the narrowest flags for
 * `mopac sandbox`. Extras a run can live without (git details, rg, the host name in
 * a lock file) are never required here: their users ask `granted` and skip them.
 */
import { SandboxError } from "../util/errors.ts";
import type { BuiltinToolName } from "../domain/tool_records.ts";

export type Need =
  | { kind: "read"; path: string; why: string }
  | { kind: "write"; path: string; why: string }
  /** `host` is `host:port` or a bare host (every port); absent means any host. */
  | { kind: "net"; host?: string; why: string }
  | { kind: "run"; command: string; why: string }
  | { kind: "env"; variable: string; why: string };

export interface RunPlan {
  dataDir: string;
  configFiles: string[];
  workspace: string;
  providerUrl?: string;
  /** `envVars`: the variables an operator passes on to a stdio server (its `env_vars`). */
  mcp: Array<{ name: string; type: string; command?: string; url?: string; envVars?: string[] }>;
  /** Names of the tools offered to the model. */
  tools: string[];
  /** Env vars the config references. */
  envVars: string[];
  /** The profile's `fetch.hosts`; absent: `fetch`, when offered (user profiles), may reach any host. */
  fetchHosts?: readonly string[];
  /** `hooks.PreToolUse` is configured: hooks run under `bash -c` whether or not bash is offered. */
  hooks?: boolean;
  /** The small model's base URL (titles, summaries, sub-agents), when it is called over the net. */
  smallModelUrl?: string;
  /** The base URL of the model `agent` tool calls run on, when the profile names its own. */
  subAgentModelUrl?: string;
  /** Where OAuth logins of MCP servers are kept, when a server may use one. */
  oauthDir?: string;
}

const WRITE_TOOLS: readonly string[] = ["edit", "multiedit", "write"] satisfies BuiltinToolName[];
const SHELL_TOOLS: readonly string[] = [
  "bash",
  "job_output",
  "job_kill",
] satisfies BuiltinToolName[];
const FETCH_TOOL = "fetch tool";
/** Only a server that needs a login needs these; one that does not runs without. */
const OAUTH_LOGINS = "MCP OAuth logins";

export function permissionNeeds(plan: RunPlan): Need[] {
  const needs: Need[] = [
    { kind: "read", path: plan.dataDir, why: "data dir" },
    { kind: "write", path: plan.dataDir, why: "data dir" },
    { kind: "read", path: plan.workspace, why: "workspace" },
  ];
  for (const file of plan.configFiles) needs.push({ kind: "read", path: file, why: "config" });
  if (plan.tools.some((t) => WRITE_TOOLS.includes(t))) {
    needs.push({ kind: "write", path: plan.workspace, why: "file-writing tools" });
  }
  if (plan.tools.some((t) => SHELL_TOOLS.includes(t))) {
    needs.push({ kind: "run", command: "bash", why: "bash tool" });
  }
  if (plan.tools.includes("fetch")) {
    const hosts = plan.fetchHosts;
    // Exactly the listed hosts (Deno takes `*.example.com` as written); only a user
    // profile with fetch and no host list, or a host `*`, needs the whole network.
    if (!hosts || hosts.includes("*")) {
      needs.push({ kind: "net", why: FETCH_TOOL });
    } else {
      for (const host of hosts) {
        needs.push({ kind: "net", host: host.toLowerCase(), why: FETCH_TOOL });
      }
    }
  }
  const provider = plan.providerUrl ? hostOf(plan.providerUrl) : undefined;
  if (provider) needs.push({ kind: "net", host: provider, why: "provider" });
  for (const server of plan.mcp) {
    if (server.type === "stdio" && server.command) {
      needs.push({ kind: "run", command: server.command, why: `MCP server "${server.name}"` });
      for (const variable of server.envVars ?? []) {
        needs.push({ kind: "env", variable, why: `MCP server "${server.name}"` });
      }
    } else if (server.url) {
      const host = hostOf(server.url);
      if (host) needs.push({ kind: "net", host, why: `MCP server "${server.name}"` });
    }
  }
  for (const variable of plan.envVars) needs.push({ kind: "env", variable, why: "config" });
  if (plan.hooks) needs.push({ kind: "run", command: "bash", why: "hooks.PreToolUse" });
  // Each model's host once: the first model that needs it names it.
  const modelHosts = new Set([provider]);
  const models: Array<[string | undefined, string]> = [
    [plan.smallModelUrl, "small model"],
    [plan.subAgentModelUrl, "sub-agent model"],
  ];
  for (const [url, why] of models) {
    const host = url ? hostOf(url) : undefined;
    if (!host || modelHosts.has(host)) continue;
    modelHosts.add(host);
    needs.push({ kind: "net", host, why });
  }
  if (plan.oauthDir) {
    needs.push({ kind: "read", path: plan.oauthDir, why: OAUTH_LOGINS });
    needs.push({ kind: "write", path: plan.oauthDir, why: OAUTH_LOGINS });
  }
  return needs;
}

/**
 * The needs a run cannot start without. `fetch` reaching its hosts is not one of
 * them: without the grant its calls fail as tool errors naming the flag, and the rest
 * of the run works. Nor is the folder of OAuth logins: a server that needs a login it
 * cannot read fails naming `mopac mcp login`, and servers that need none work.
 */
export function requiredNeeds(needs: readonly Need[]): Need[] {
  return needs.filter((n) =>
    !(n.kind === "net" && n.why === FETCH_TOOL) &&
    n.why !== OAUTH_LOGINS &&
    // The config loader checks each MOPAC_* variable it reads, and refuses if one is hidden.
    !(n.kind === "env" && n.variable.endsWith("*"))
  );
}

/** `host:port` of a URL, with the scheme's default port made explicit. */
export function hostOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // config validation reports bad URLs; nothing to ask Deno for here
  }
  const defaults: Record<string, string> = {
    "http:": "80",
    "https:": "443",
    "ws:": "80",
    "wss:": "443",
  };
  const port = parsed.port || defaults[parsed.protocol];
  if (!parsed.hostname) return undefined;
  return port ? `${parsed.hostname}:${port}` : parsed.hostname;
}

function descriptor(need: Need): Deno.PermissionDescriptor {
  switch (need.kind) {
    case "read":
      return { name: "read", path: need.path };
    case "write":
      return { name: "write", path: need.path };
    case "net":
      return need.host ? { name: "net", host: need.host } : { name: "net" };
    case "run":
      return { name: "run", command: need.command };
    case "env":
      return { name: "env", variable: need.variable };
  }
}

/** The flag that grants one need, e.g. `--allow-net=127.0.0.1:4000`. */
export function flagFor(need: Need): string {
  switch (need.kind) {
    case "read":
      return `--allow-read=${need.path}`;
    case "write":
      return `--allow-write=${need.path}`;
    case "net":
      return need.host ? `--allow-net=${need.host}` : "--allow-net";
    case "run":
      return `--allow-run=${need.command}`;
    case "env":
      return `--allow-env=${need.variable}`;
  }
}

/** Whether Deno grants `desc` now; "prompt" counts as not granted, since mopac never asks. */
export function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** The needs Deno does not grant right now. */
function missingNeeds(needs: readonly Need[]): Need[] {
  return needs.filter((need) => !granted(descriptor(need)));
}

/** Throws SandboxError naming every missing flag when any need is not granted. */
export function preflight(needs: readonly Need[]): void {
  const missing = missingNeeds(needs);
  if (missing.length === 0) return;
  const lines = missing.map((n) => `  ${flagFor(n)}  (${n.why})`);
  const flags = sandboxFlags(missing).join(" ");
  throw new SandboxError(
    `Deno does not grant what this run needs; add:\n${[...new Set(lines)].join("\n")}`,
    flags,
  );
}

/**
 * The narrowest `deno run` flags for these needs, one flag per kind, values sorted
 * and deduplicated; a path inside another listed path is dropped (Deno grants
 * sub-paths), a bare host covers its `host:port` entries, and any-host net wins.
 */
export function sandboxFlags(needs: readonly Need[]): string[] {
  const values = (kind: Need["kind"]) => needs.filter((n) => n.kind === kind);
  const flags: string[] = [];
  const paths = (kind: "read" | "write") =>
    coverPaths(values(kind).map((n) => (n as { path: string }).path));
  const read = paths("read");
  const write = paths("write");
  if (read.length) flags.push(`--allow-read=${read.join(",")}`);
  if (write.length) flags.push(`--allow-write=${write.join(",")}`);
  const net = values("net") as Array<{ host?: string }>;
  if (net.some((n) => !n.host)) flags.push("--allow-net");
  else if (net.length) flags.push(`--allow-net=${coverHosts(net.map((n) => n.host!)).join(",")}`);
  const run = unique(values("run").map((n) => (n as { command: string }).command));
  if (run.length) flags.push(`--allow-run=${run.join(",")}`);
  const env = coverVariables(values("env").map((n) => (n as { variable: string }).variable));
  if (env.length) flags.push(`--allow-env=${env.join(",")}`);
  return flags;
}

function unique(items: string[]): string[] {
  return [...new Set(items)].sort();
}

/** `MOPAC_*` (Deno's prefix wildcard) covers `MOPAC_MODEL`. */
function coverVariables(names: string[]): string[] {
  const all = unique(names);
  const prefixes = all.filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1));
  return all.filter((n) => n.endsWith("*") || !prefixes.some((p) => n.startsWith(p)));
}

function coverPaths(paths: string[]): string[] {
  const all = unique(paths.map((p) => (p.length > 1 ? p.replace(/[/\\]+$/, "") : p)));
  const within = (p: string, root: string) =>
    p !== root && (p.startsWith(root.endsWith("/") ? root : `${root}/`) ||
      p.startsWith(root.endsWith("\\") ? root : `${root}\\`));
  return all.filter((p) => !all.some((root) => within(p, root)));
}

function coverHosts(hosts: string[]): string[] {
  const all = unique(hosts);
  return all.filter((h) =>
    !(h.includes(":") && !h.startsWith("[") && all.includes(h.split(":")[0]))
  );
}
