/**
 * The names MCP tools get in front of the model: `mcp_<server>_<tool>` with single
 * underscores, only `[A-Za-z0-9_-]` (what OpenAI-compatible endpoints accept), at most
 * 64 characters, unique. A name that had to be shortened or that collides gets a short
 * hash of the original server and tool, so it stays the same from run to run.
 */
import { sha256Hex } from "../util/sha256.ts";

export const MAX_TOOL_NAME = 64;
const HASH_LEN = 8;

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function shortHash(text: string, len = HASH_LEN): string {
  return sha256Hex(text).slice(0, len);
}

/** The plain name, before shortening and collision handling. */
export function baseToolName(server: string, tool: string): string {
  return `mcp_${sanitize(server)}_${sanitize(tool)}`;
}

function withHash(base: string, key: string): string {
  const suffix = `_${shortHash(key)}`;
  return base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
}

export interface NamedTool {
  server: string;
  tool: string;
  name: string;
}

/**
 * Names every (server, tool) pair in the given order; earlier pairs keep their plain
 * name when a later one collides with it.
 */
export function assignToolNames(pairs: Array<{ server: string; tool: string }>): NamedTool[] {
  const used = new Set<string>();
  const out: NamedTool[] = [];
  for (const { server, tool } of pairs) {
    const key = `${server}\u0000${tool}`;
    const base = baseToolName(server, tool);
    let name = base.length <= MAX_TOOL_NAME ? base : withHash(base, key);
    for (let n = 1; used.has(name); n++) name = withHash(base, `${key}\u0000${n}`);
    used.add(name);
    out.push({ server, tool, name });
  }
  return out;
}
