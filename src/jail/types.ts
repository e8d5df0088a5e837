/**
 * The OS jail confines the processes the model starts (bash commands, their
 * background jobs, and MCP servers the operator marks `sandbox: true`). It is not
 * Deno's permission sandbox, which confines mopac's own process: the two have
 * different names in code and docs on purpose. This file holds the shapes every
 * part of the jail and its users share.
 */

/** Network for jailed commands (`bash.network` of a profile). */
export type NetworkPolicy =
  | { mode: "none" }
  | { mode: "all" }
  /** Only these hosts, through mopac's proxy (`host`, `host:port`, `*.domain`). */
  | { mode: "hosts"; hosts: readonly string[] };

/** One step of the jail's filesystem view, applied in order (later ones win). */
export type Mount =
  /** Writable at the same path. */
  | { kind: "write"; path: string }
  /** Read-only at the same path (inside something writable). */
  | { kind: "read-only"; path: string }
  /** Hidden: a file cannot be opened (permission denied), a folder is empty and read-only. */
  | { kind: "hide-file"; path: string }
  | { kind: "hide-dir"; path: string };

/** Everything a jail allows, resolved to concrete paths before it starts. */
export interface JailPlan {
  /** Where commands start and what they may write (with `mounts`). */
  workspace: string;
  /** In order: writable roots, read-only places inside them, hidden files and folders. */
  mounts: Mount[];
  network: NetworkPolicy;
  /** Host folder for package-manager caches (npm, pip, deno, cargo, go), writable; absent for ephemeral runs. */
  cacheDir?: string;
  /** Notes on what the plan could not express (shown with -v and in `sandbox --check`). */
  notes: string[];
}

export interface ChildExit {
  code: number;
  signal: Deno.Signal | null;
}

/** One shell command to start: bash's arguments, its folder and its whole environment. */
export interface ShellSpawn {
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** A started command, wherever it runs. */
export interface ShellChild {
  /** The process id where it runs (inside the jail's PID namespace when jailed); 0 until known. */
  readonly pid: number;
  readonly status: Promise<ChildExit>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Signals the command's whole process group (also its leftovers after it exited). */
  signal(sig: "SIGTERM" | "SIGKILL"): void;
  /** Set (before `status` resolves) when the command could not start: no such folder. */
  readonly missingCwd?: boolean;
}

/** Starts the bash tool's commands: directly, or inside the session's jail. */
export interface ShellLauncher {
  /** What runs the commands, for messages: "bwrap", "sandbox-exec" or "none". */
  readonly backend: string;
  /** One sentence for the model on what a command can do in the jail; absent when unjailed. */
  readonly summary?: string;
  /**
   * Variables the jail sets for every command: `defaults` go before config `env`
   * (caches), `forced` after everything (TMPDIR, proxy), so neither config nor an
   * earlier command can point them outside the jail.
   */
  readonly env: {
    defaults: Readonly<Record<string, string>>;
    forced: Readonly<Record<string, string>>;
  };
  /**
   * Starts what a command will need (the jail) so that its start overlaps the model's
   * stream and the gate's work on the command. Resolves once the jail's process runs
   * (it then comes up on its own), not when it is ready; a call while a start is under
   * way gets that start's promise. Never rejects (a failed start shows at the next
   * spawn). Nothing of the model's reaches the jail before a spawn.
   */
  prepare?(): Promise<void>;
  /** Never throws: a jail that cannot start shows up as the command's output and exit 126. */
  spawn(spec: ShellSpawn): ShellChild;
  /** Ends every command and the jail itself. */
  dispose(): Promise<void>;
}
