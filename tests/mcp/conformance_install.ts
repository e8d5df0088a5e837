/**
 * Node 22 and the MCP conformance suite for tests/mcp/conformance_*_test.ts, installed
 * from npm once into a versioned folder of a cache (MOPAC_CONFORMANCE_DIR, default
 * ~/.cache/mopac/mcp-conformance). A cold cache and several test processes at once are
 * both normal: installs happen under an OS file lock, into a scratch folder that is
 * renamed into place only when complete, so a reader sees a whole install or none, and
 * a crashed install leaves nothing half-done behind the name.
 */
import { join } from "node:path";

export const CONFORMANCE_VERSION = "0.1.16";
const PACKAGES = ["node@22", `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`];

export interface Conformance {
  node: string;
  cli: string;
}

const home = Deno.env.get("HOME") ?? "/tmp";
const root = Deno.env.get("MOPAC_CONFORMANCE_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/mopac/mcp-conformance`;

function paths(dir: string): Conformance {
  return {
    node: join(dir, "node_modules/node/bin/node"),
    cli: join(dir, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
  };
}

async function ready(dir: string): Promise<boolean> {
  const { node, cli } = paths(dir);
  try {
    const out = await new Deno.Command(node, { args: ["--version"], stderr: "null" }).output();
    if (!out.success || !new TextDecoder().decode(out.stdout).startsWith("v22.")) return false;
    return (await Deno.stat(cli)).isFile;
  } catch {
    return false;
  }
}

async function npmInstall(dir: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        dir,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        ...PACKAGES,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    return out.success ? undefined : new TextDecoder().decode(out.stderr).trim().slice(-2000);
  } catch (err) {
    return `npm could not run: ${(err as Error).message}`;
  }
}

/** The suite, installing it first when needed; a string says why it cannot be had. */
export async function obtainConformance(): Promise<Conformance | string> {
  const target = join(root, `${CONFORMANCE_VERSION}-node22`);
  if (await ready(target)) return paths(target);
  await Deno.mkdir(root, { recursive: true });
  const lock = await Deno.open(join(root, ".install.lock"), { write: true, create: true });
  try {
    await lock.lock(true);
    // Another process may have installed it while this one waited for the lock.
    if (await ready(target)) return paths(target);
    let why: string | undefined;
    // One retry: a cold npm cache on a busy network fails now and then.
    for (let attempt = 0; attempt < 2; attempt++) {
      const scratch = join(root, `.install-${crypto.randomUUID()}`);
      why = await npmInstall(scratch);
      if (!why && await ready(scratch)) {
        await Deno.remove(target, { recursive: true }).catch(() => {});
        await Deno.rename(scratch, target);
        return paths(target);
      }
      why ??= `no Node 22 in ${scratch} after npm install`;
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
    return why!;
  } finally {
    lock.close();
  }
}
