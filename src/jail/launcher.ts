/**
 * The bash tool's launcher when commands are jailed: the session's one jail, started
 * when a response of the model first names the bash tool (the start runs while the
 * call streams in and the gate checks it; a run whose model never calls bash never
 * pays for it), started again on the next command if it ended (its /tmp and
 * background jobs are then gone, and mopac says so), and ended with the run.
 */
import { join } from "node:path";
import { BWRAP, bwrapArgs, pathEnv, PROXY_SOCKET_IN_JAIL } from "./bwrap.ts";
import { cacheEnv, proxyEnv, tmpEnv } from "./env.ts";
import { JailedChild } from "./jailed_child.ts";
import { buildPlan, cacheDirOf, type PlanInput, runDirOf } from "./plan.ts";
import type { Backend } from "./probe.ts";
import { NetworkProxy } from "./proxy.ts";
import { HostBridge } from "./bridge.ts";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt.ts";
import { type JailCommand, SessionJail } from "./session.ts";
import { supervisorCommand } from "./supervisor.ts";
import type { JailPlan, ShellChild, ShellLauncher, ShellSpawn } from "./types.ts";

export interface LauncherOptions {
  backend: Backend;
  plan: PlanInput;
  log: (line: string) => void;
  /** How long the jail may take to come up (default 60 s: a loaded CI machine is slow). */
  startTimeoutMs?: number;
}

/** The loopback port socat listens on inside a Linux jail (its own network namespace). */
const BRIDGE_PORT = 3128;

export class JailLauncher implements ShellLauncher {
  readonly backend: string;
  readonly summary: string;
  readonly env: ShellLauncher["env"];
  readonly #opts: LauncherOptions;
  readonly #tmpDir: string;
  #jail?: Promise<SessionJail>;
  /** prepare()'s answer while a jail it started is starting: resolves once its process runs. */
  #spawned?: Promise<void>;
  #proxy?: NetworkProxy;
  #bridge?: HostBridge;
  #disposed = false;

  constructor(opts: LauncherOptions) {
    this.#opts = opts;
    this.backend = opts.backend;
    const linux = opts.backend === "bwrap";
    // Linux: the jail's own tmpfs. macOS has no mount namespace: a private folder.
    this.#tmpDir = linux ? "/tmp" : join(opts.plan.dataDir, "tmp", crypto.randomUUID());
    const network = opts.plan.network;
    const forced = { ...tmpEnv(this.#tmpDir) };
    if (network.mode === "hosts" && linux) {
      Object.assign(forced, proxyEnv(BRIDGE_PORT, network.hosts));
    }
    // An ephemeral run keeps nothing: its caches live and die with the jail's /tmp.
    const cacheDir = opts.plan.persistCache === false
      ? join(this.#tmpDir, ".cache")
      : cacheDirOf(opts.plan.dataDir);
    this.env = { defaults: cacheEnv(cacheDir), forced };
    this.summary = summaryOf(opts.plan);
    if (network.mode === "hosts" && !linux) {
      // No network namespace to bridge into: commands reach the proxy's loopback port
      // directly, and it must be known before the first command's environment is built.
      this.#proxy = NetworkProxy.start({
        hosts: network.hosts,
        log: (line) => opts.log(`mopac: ${line}`),
      });
      Object.assign(forced, proxyEnv(this.#proxy.port, network.hosts));
    }
  }

  spawn(spec: ShellSpawn): ShellChild {
    const child = new JailedChild();
    if (this.#disposed) {
      child.failed("the run is ending; no new commands");
      return child;
    }
    this.#running().then(
      (jail) => jail.attach(child, spec),
      (err) => child.failed(`the jail could not start: ${(err as Error).message}`),
    );
    return child;
  }

  prepare(): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    // A second caller (the gate after a warm start) waits for the same process to run.
    if (this.#jail) return this.#spawned ?? Promise.resolve();
    const running = Promise.withResolvers<void>();
    // Kept even when it fails: the next spawn reports that failure instead of trying again.
    const pending = this.#jail = this.#start(running.resolve);
    pending.then(() => running.resolve(), () => running.resolve());
    this.#spawned = running.promise;
    return running.promise;
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const jail = await this.#jail?.catch(() => undefined);
    await jail?.close();
    await this.#bridge?.close();
    await this.#proxy?.close();
    if (this.#opts.backend !== "bwrap") {
      await Deno.remove(this.#tmpDir, { recursive: true }).catch(() => {});
    }
  }

  /**
   * The live jail, starting one when there is none or the last one ended. Callers
   * that come together share one start; a failed start is retried by the next command.
   */
  async #running(): Promise<SessionJail> {
    for (;;) {
      if (this.#disposed) throw new Error("the run is ending; no new commands");
      const pending = this.#jail ??= this.#start();
      let jail: SessionJail;
      try {
        jail = await pending;
      } catch (err) {
        if (this.#jail === pending) {
          this.#jail = undefined;
          this.#spawned = undefined;
        }
        throw err;
      }
      if (jail.alive) return jail;
      if (this.#jail === pending) {
        this.#opts.log(
          `mopac: the jail ended (${jail.endReason}); starting a new one ` +
            "(its /tmp and background processes are gone)",
        );
        this.#jail = undefined;
        this.#spawned = undefined;
      }
    }
  }

  /** `spawned`: told once the jail's process runs (before it is ready). */
  async #start(spawned?: () => void): Promise<SessionJail> {
    // The proxy first: its socket folder must exist for the plan to hide it.
    if (this.#opts.backend === "bwrap") await this.#startBridgedProxy();
    const plan = await buildPlan(this.#opts.plan);
    for (const note of plan.notes) this.#opts.log(`mopac: jail: ${note}`);
    const cmd = this.#opts.backend === "bwrap"
      ? this.#linuxCommand(plan)
      : await this.#macosCommand(plan);
    return await SessionJail.start(cmd, { timeoutMs: this.#opts.startTimeoutMs, spawned });
  }

  #linuxCommand(plan: JailPlan): JailCommand {
    const proxySocket = this.#bridge?.socket;
    const supervisor = supervisorCommand();
    const args = bwrapArgs(plan, { proxySocket, keep: [supervisor[0]] });
    return {
      argv: [BWRAP, ...args, "--", ...supervisor],
      env: supervisorEnv("/run/mopac-deno"),
      bridge: proxySocket ? { port: BRIDGE_PORT, socket: PROXY_SOCKET_IN_JAIL } : undefined,
    };
  }

  async #macosCommand(plan: JailPlan): Promise<JailCommand> {
    await Deno.mkdir(this.#tmpDir, { recursive: true });
    const proxyPort = this.#proxy?.port;
    const profile = seatbeltProfile(plan, { tmpDir: this.#tmpDir, proxyPort });
    const env = supervisorEnv(join(this.#tmpDir, ".deno"));
    return { argv: [SANDBOX_EXEC, "-p", profile, ...supervisorCommand()], env };
  }

  /** Linux hosts mode: one proxy and bridge per run; a restarted jail reuses them. */
  async #startBridgedProxy(): Promise<void> {
    const network = this.#opts.plan.network;
    if (network.mode !== "hosts") return;
    const log = (line: string) => this.#opts.log(`mopac: ${line}`);
    this.#proxy ??= NetworkProxy.start({ hosts: network.hosts, log });
    if (this.#bridge && (await this.#bridge.alive())) return;
    await this.#bridge?.close();
    this.#bridge = await HostBridge.start(runDirOf(this.#opts.plan.dataDir), this.#proxy.port);
  }
}

function summaryOf(plan: PlanInput): string {
  const net = plan.network.mode === "none"
    ? "there is no network (only loopback inside the sandbox)"
    : plan.network.mode === "all"
    ? "the network is open"
    : `the network reaches only ${plan.network.hosts.join(", ")} through a proxy ` +
      "(HTTP_PROXY and HTTPS_PROXY are set; tools that ignore them cannot connect)";
  return "Commands run in an OS sandbox shared by the session's calls: they can write only the " +
    "workspace" + (plan.writeGlobs ? " folders the profile allows" : "") +
    (plan.addDirs?.length ? `, ${plan.addDirs.join(", ")}` : "") + ", /tmp and the " +
    `package caches; ${net}; some files are hidden.`;
}

/**
 * The supervisor's whole environment: nothing of mopac's (no keys). Commands get
 * their own environment with each request.
 */
function supervisorEnv(denoDir: string): Record<string, string> {
  return {
    PATH: pathEnv(),
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PACKAGE_JSON: "1",
    // The supervisor imports nothing: Deno's cache can be a throwaway inside the jail.
    DENO_DIR: denoDir,
  };
}
