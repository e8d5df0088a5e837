/**
 * Resolves what a run is before anything starts: config, profile, models, limits,
 * and the Deno permissions it needs. Shared by `run`, `run --dry-run` and `sandbox`.
 */
import { join, resolve } from "node:path";
import type { RunArgs } from "../cli/args.ts";
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import { resolveModel } from "../catalog/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { type Profile, resolveProfile } from "../permission/profiles.ts";
import { resolveLimits } from "../permission/limits.ts";
import { type Need, permissionNeeds } from "../permission/sandbox.ts";
import type { Limits } from "../agent/types.ts";
import { readEnv } from "../util/env.ts";
import { serversFor } from "./tooling.ts";
import { BUILTIN_TOOLS } from "../permission/profiles.ts";

export interface ResolvedRun {
  cwd: string;
  loaded: LoadedConfig;
  profile: Profile;
  model: ResolvedModel;
  smallModel: ResolvedModel;
  limits: Limits;
  /** Everything the run may use (what `mopac sandbox` prints). */
  needs: Need[];
  /** What the run cannot start without (checked by the preflight). */
  required: Need[];
}

type ResolveArgs = Pick<
  RunArgs,
  | "cwd"
  | "config"
  | "dataDir"
  | "model"
  | "smallModel"
  | "agent"
  | "tools"
  | "maxTurns"
  | "maxTokens"
  | "maxCost"
  | "timeout"
  | "replay"
  | "record"
>;

export async function resolveRun(args: ResolveArgs): Promise<ResolvedRun> {
  const cwd = resolve(args.cwd ?? Deno.cwd());
  const models: Record<string, { model: string }> = {};
  if (args.model) models.large = { model: args.model };
  if (args.smallModel) models.small = { model: args.smallModel };
  const loaded = await loadConfig({
    cwd,
    configFile: args.config,
    dataDir: args.dataDir,
    env: readEnv,
    flags: Object.keys(models).length > 0 ? { models } : {},
  });
  const { config } = loaded;
  const profile = resolveProfile(args.agent, config, { tools: args.tools });
  const ctx = { config, env: readEnv };
  // -m wins over the profile's model, which wins over models.large.
  const model = resolveModel(args.model ? "large" : profile.model ?? "large", ctx);
  const smallModel = config.models?.small || args.smallModel ? resolveModel("small", ctx) : model;
  const limits = resolveLimits(
    {
      max_turns: args.maxTurns,
      max_tokens: args.maxTokens,
      max_cost: args.maxCost,
      timeout: args.timeout,
    },
    profile,
    config.limits,
  );
  const offered = BUILTIN_TOOLS.filter((t) => profile.tools.has(t));
  const servers = serversFor(config, profile);
  const needs = permissionNeeds({
    dataDir: loaded.dataDir,
    configFiles: loaded.files,
    workspace: loaded.workspaceRoot,
    providerUrl: args.replay ? undefined : model.base_url,
    mcp: Object.entries(servers).map(([name, s]) => ({
      name,
      type: s.type ?? (s.command ? "stdio" : "http"),
      command: s.command,
      url: s.url,
    })),
    tools: offered,
    envVars: [...loaded.referencedEnv, ...(keyVar(model) ? [keyVar(model)!] : [])],
    fetchHosts: profile.fetchHosts,
  });
  if (args.record) needs.push({ kind: "write", path: resolve(cwd, args.record), why: "--record" });
  if (args.replay) needs.push({ kind: "read", path: resolve(cwd, args.replay), why: "--replay" });
  // `fetch` reaching any host is optional: without the grant its calls fail as tool
  // errors naming the flag, and the rest of the run works.
  const required = needs.filter((n) => !(n.kind === "net" && n.why.includes("fetch")));
  return { cwd, loaded, profile, model, smallModel, limits, needs, required };
}

/** The env var holding the model's key, when the key comes from one. */
function keyVar(model: ResolvedModel): string | undefined {
  const m = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(model.api_key_source);
  return m?.[1];
}

export function logDir(dataDir: string): string {
  return join(dataDir, "logs");
}
