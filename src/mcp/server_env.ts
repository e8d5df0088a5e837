/** The environment a stdio MCP server starts with (kept light: the run loads it without the SDK). */
import type { McpServerConfig } from "./config.ts";
import { cleanBaseEnv } from "../util/child_env.ts";
import { readEnv } from "../util/env.ts";

/**
 * A stdio server's whole environment: the clean base every child of mopac gets, the
 * variables its `env_vars` names (read from mopac's own environment), then its `env`.
 * Nothing else: a server that prints its environment shows no provider key.
 */
export function serverEnv(
  cfg: McpServerConfig,
  read: (name: string) => string | undefined = readEnv,
): Record<string, string> {
  const env = cleanBaseEnv(read);
  for (const name of cfg.env_vars ?? []) {
    const value = read(name);
    if (value !== undefined) env[name] = value;
  }
  return Object.assign(env, cfg.env ?? {});
}
