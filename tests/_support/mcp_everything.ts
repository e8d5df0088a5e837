/**
 * The reference server `@modelcontextprotocol/server-everything`, run by Deno from
 * npm (pinned), over stdio or Streamable HTTP on 127.0.0.1 (see mcp_loopback.mjs).
 * `--no-config --no-lock` keep it out of the project's deno.json and deno.lock.
 */
import type { McpServerConfig } from "../../src/mcp/config.ts";

export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const LOOPBACK = new URL("./mcp_loopback.mjs", import.meta.url).pathname;
const RUN = ["run", "-A", "--no-config", "--no-lock"];

/** Generous: a cold cache downloads the package first. */
const EVERYTHING_TIMEOUT_S = 120;

export function everythingStdio(): McpServerConfig {
  return { command: Deno.execPath(), args: [...RUN, EVERYTHING, "stdio"] };
}

/** Downloads the package into Deno's cache, so that starting it later is quick. */
export async function cacheEverything(): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--no-config", "--no-lock", EVERYTHING],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`cannot fetch ${EVERYTHING}: ${new TextDecoder().decode(out.stderr)}`);
  }
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
  const timer = setTimeout(() => child.kill("SIGKILL"), EVERYTHING_TIMEOUT_S * 1000);
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
