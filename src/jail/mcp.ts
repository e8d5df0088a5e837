/**
 * MCP stdio servers the operator marks `sandbox: true` (or `{network: …}`): each
 * runs under the same jail rules as the bash tool's commands (same mounts, hidden
 * files and read-only places), in a jail of its own, so its pipes are its own,
 * with its own network setting (default none). Its environment is built from
 * scratch: mopac's own (with the provider keys) never reaches it. Unmarked servers
 * are operator code and run unjailed, as hooks do.
 */
import { BWRAP, bwrapArgs, PROXY_SOCKET_IN_JAIL } from "./bwrap.ts";
import { HostBridge } from "./bridge.ts";
import { proxyEnv, tmpEnv } from "./env.ts";
import { buildPlan, type PlanInput, runDirOf } from "./plan.ts";
import type { Backend } from "./probe.ts";
import { NetworkProxy } from "./proxy.ts";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt.ts";
import type { NetworkPolicy } from "./types.ts";

/** How a jailed server is started instead of its own command. */
export interface JailedCommand {
  command: string;
  args: string[];
  /** The whole environment: nothing is inherited. */
  env: Record<string, string>;
  clearEnv: true;
}

const BRIDGE_PORT = 3128;

/**
 * The absolute paths under /tmp the operator's config names for the server (its
 * program, its arguments, the values of its own `env`, e.g. a script or DENO_DIR):
 * kept visible, read-only, where the jail's private /tmp would hide them. Only files
 * and folders, never what mopac's environment merely inherits (TMPDIR and the like).
 */
function namedPaths(named: string[]): string[] {
  return named.filter((v) => /^\/tmp\/./.test(v) && isFileOrFolder(v));
}

function isFileOrFolder(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    return st.isFile || st.isDirectory;
  } catch {
    // Missing, or not readable by mopac: nothing to keep.
    return false;
  }
}

export class McpJails {
  readonly #backend: Backend;
  readonly #plan: Omit<PlanInput, "network">;
  readonly #log: (line: string) => void;
  readonly #closers: Array<() => Promise<void>> = [];

  constructor(
    opts: { backend: Backend; plan: Omit<PlanInput, "network">; log: (l: string) => void },
  ) {
    this.#backend = opts.backend;
    this.#plan = opts.plan;
    this.#log = opts.log;
  }

  /**
   * The command line that runs `command args` jailed with `network`, and its
   * environment: `baseEnv` (what every child gets) plus the jail's variables.
   */
  async wrap(
    server: { command: string; args?: string[]; env?: Record<string, string> },
    network: NetworkPolicy,
    baseEnv: Record<string, string>,
  ): Promise<JailedCommand> {
    const plan = await buildPlan({ ...this.#plan, network, persistCache: false });
    const env: Record<string, string> = { ...baseEnv, ...tmpEnv("/tmp") };
    const program = [server.command, ...(server.args ?? [])];
    let proxy: NetworkProxy | undefined;
    if (network.mode === "hosts") {
      proxy = NetworkProxy.start({
        hosts: network.hosts,
        log: (line) => this.#log(`mopac: MCP ${line}`),
      });
      this.#closers.push(() => proxy!.close());
    }
    if (this.#backend === "sandbox-exec") {
      if (proxy) {
        Object.assign(env, proxyEnv(proxy.port, network.mode === "hosts" ? network.hosts : []));
      }
      const profile = seatbeltProfile(plan, { tmpDir: "/private/tmp", proxyPort: proxy?.port });
      return { command: SANDBOX_EXEC, args: ["-p", profile, ...program], env, clearEnv: true };
    }
    let proxySocket: string | undefined;
    let inner = program;
    if (proxy && network.mode === "hosts") {
      const bridge = await HostBridge.start(runDirOf(this.#plan.dataDir), proxy.port);
      this.#closers.unshift(() => bridge.close());
      proxySocket = bridge.socket;
      Object.assign(env, proxyEnv(BRIDGE_PORT, network.hosts));
      // socat bridges the proxy to loopback inside the server's jail before it starts.
      inner = [
        "bash",
        "-c",
        `socat TCP-LISTEN:${BRIDGE_PORT},bind=127.0.0.1,fork,reuseaddr ` +
        `UNIX-CONNECT:${PROXY_SOCKET_IN_JAIL} 2>/dev/null & ` +
        `for i in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/${BRIDGE_PORT}) 2>/dev/null && break; ` +
        `sleep 0.01; done; exec "$@"`,
        "mcp-server",
        ...program,
      ];
    }
    const args = [
      ...bwrapArgs(plan, {
        proxySocket,
        keep: namedPaths([...program, ...Object.values(server.env ?? {})]),
      }),
      "--",
      ...inner,
    ];
    return { command: BWRAP, args, env, clearEnv: true };
  }

  async dispose(): Promise<void> {
    for (const close of this.#closers.splice(0)) await close().catch(() => {});
  }
}
