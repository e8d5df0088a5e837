/**
 * The reference server `@modelcontextprotocol/server-filesystem`, run by Deno from npm
 * over stdio on the folders given. Like server-everything, its version is pinned in
 * deno.json's imports and deno.lock, and deps.ts has it in the cache before a test
 * starts it.
 */
import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { DENO_RUN, denoDir, START_TIMEOUT_S } from "./deps.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** The import-map entry's target: the main module of a run must be a full specifier. */
export const FILESYSTEM = JSON.parse(Deno.readTextFileSync(CONFIG))
  .imports["@modelcontextprotocol/server-filesystem"] as string;
// The server may start in any folder: name the project's config (and so its lock) outright.
const RUN = [...DENO_RUN, "-A", "--config", CONFIG];

export function filesystemStdio(...dirs: string[]): McpServerConfig {
  return {
    command: Deno.execPath(),
    args: [...RUN, FILESYSTEM, ...dirs],
    env: { DENO_DIR: denoDir() },
    start_timeout: START_TIMEOUT_S,
  };
}

/** A PNG-signed file of `bytes` bytes (random after the signature): an image to a checker. */
export function fakePng(bytes: number): Uint8Array {
  const data = new Uint8Array(bytes);
  crypto.getRandomValues(data.subarray(8));
  data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return data;
}
