/**
 * Runs `main.ts` as a subprocess under narrowed Deno permissions, the way a
 * locked-down CI job would, and collects what it printed.
 */
import { fileURLToPath } from "node:url";
import { DENO_RUN, denoDir } from "./deps.ts";

export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

export interface Permissions {
  net?: string[];
  read?: string[];
  write?: string[];
  run?: string[];
  env?: string[] | true;
  sys?: string[];
  /** Everything allowed (-A). */
  all?: boolean;
}

export interface MopacRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  cwd: string;
  perms: Permissions;
  env?: Record<string, string>;
  stdin?: string;
  /**
   * Raw Deno flags used instead of `denoFlags(perms)`, exactly as given (e.g. what
   * `mopac sandbox` printed); `perms` is then ignored.
   */
  flags?: string[];
  /** The entry to run instead of main.ts (a build's `main.js`: tests/_support/bundle.ts). */
  main?: string;
}

export function denoFlags(p: Permissions): string[] {
  if (p.all) return ["-A"];
  const flags = ["--no-prompt"];
  const list = (name: string, v?: string[]) => {
    if (v && v.length > 0) flags.push(`--allow-${name}=${v.join(",")}`);
  };
  list("net", p.net);
  // The program's own files and Deno's npm cache are read by the runtime itself.
  list("read", [...(p.read ?? []), REPO]);
  list("write", p.write);
  list("run", p.run);
  if (p.env === true) flags.push("--allow-env");
  else list("env", p.env);
  list("sys", p.sys);
  return flags;
}

/**
 * The whole environment of a child Deno started with `clearEnv`: what it needs to find
 * bash and its module cache, and plain output. No provider keys leak in from the test runner.
 */
export function cleanDenoEnv(): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    DENO_DIR: denoDir(),
    NO_COLOR: "1",
  };
}

function command(args: string[], opts: SpawnOptions): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, ...(opts.flags ?? denoFlags(opts.perms)), opts.main ?? MAIN, ...args],
    cwd: opts.cwd,
    clearEnv: true,
    env: { ...cleanDenoEnv(), ...opts.env },
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

export async function runMopac(args: string[], opts: SpawnOptions): Promise<MopacRun> {
  const child = command(args, opts).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Starts mopac and hands back the process, for tests that kill it mid-run. */
export function spawnMopac(args: string[], opts: SpawnOptions): Deno.ChildProcess {
  return command(args, opts).spawn();
}

/** Parses stream-json output into events. */
export function events(stdout: string): Array<Record<string, unknown>> {
  return stdout.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}
