/**
 * The reference server `@modelcontextprotocol/server-everything`, run by Deno from
 * npm over stdio or Streamable HTTP on 127.0.0.1 (see mcp_loopback.mjs). Its version
 * is pinned in deno.json's imports and deno.lock like every other package, and
 * deps.ts has it in the cache before a test starts it.
 */
import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { DENO_RUN, denoDir, START_TIMEOUT_S } from "./deps.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const LOOPBACK = fileURLToPath(new URL("./mcp_loopback.mjs", import.meta.url));

/** The import-map entry's target: the main module of a run must be a full specifier. */
export const EVERYTHING = JSON.parse(Deno.readTextFileSync(CONFIG))
  .imports["@modelcontextprotocol/server-everything"] as string;
// The server may start in any folder: name the project's config (and so its lock) outright.
const RUN = [...DENO_RUN, "-A", "--config", CONFIG];

export function everythingStdio(): McpServerConfig {
  return {
    command: Deno.execPath(),
    args: [...RUN, EVERYTHING, "stdio"],
    env: { DENO_DIR: denoDir() },
    start_timeout: START_TIMEOUT_S,
  };
}

/** Starts the HTTP variant; resolves once it listens, with its /mcp URL. */
export async function startEverythingHttp(): Promise<{ url: string; close(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...RUN, "--preload", LOOPBACK, EVERYTHING, "streamableHttp"],
    env: { PORT: "0" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  // Bounds the HTTP variant's start as a config bounds the stdio one's.
  const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_S * 1000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server-everything exited before listening:\n${seen}`);
      seen += value;
      const m = seen.match(/MCP_LOOPBACK_LISTENING ([\d.]+):(\d+)/);
      if (m) {
        // Keep draining stderr so the server never blocks on a full pipe.
        void (async () => {
          while (!(await reader.read()).done) { /* discard */ }
        })().catch(() => {});
        return {
          url: `http://${m[1]}:${m[2]}/mcp`,
          async close() {
            child.kill("SIGTERM");
            await child.status;
          },
        };
      }
    }
  } catch (err) {
    child.kill("SIGKILL");
    await child.status;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
