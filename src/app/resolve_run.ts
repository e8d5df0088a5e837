/**
 * The first step of a run: what it is, before anything starts. Config, the agent
 * profile, the models (large, small, and the one `agent` tool calls run on), limits,
 * and the Deno permissions it needs. Shared by `run`, `run --dry-run` and `sandbox`.
 */
import { resolve } from "node:path";
import {
  type IgnoredKey,
  type LimitCaps,
  type LoadedConfig,
  lowerCaps,
  type Narrowing,
} from "../config/mod.ts";
import { type ResolveContext, resolveModel } from "../catalog/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import {
  applyNarrowing,
  type Profile,
  resolveProfile,
  withinParent,
} from "../permission/profiles.ts";
import { wideningAttempts } from "./widening.ts";
import { BUILTIN_TOOL_NAMES } from "../domain/tool_records.ts";
import { type Limits, type OnDeny, resolveLimits } from "../agent/limits.ts";
import { granted, type Need, permissionNeeds, requiredNeeds } from "../deno_perms/needs.ts";
import { transportKind } from "../mcp/config.ts";
import { readEnv } from "../util/env.ts";
import { SandboxError, UsageError } from "../util/errors.ts";
import { serversFor } from "./tooling.ts";
import { type JailChoice, jailChoice, jailedServer, serverNetwork } from "./jail_choice.ts";
import { jailCommand, jailNeeds } from "../jail/mod.ts";
import { loadRunConfig } from "./load_config.ts";

/**
 * What a run is asked to do, as the composition root needs it. The CLI's parsed
 * flags fit this shape; the app does not depend on how they were parsed.
 */
export interface RunOptions {
  cwd?: string;
  config?: string;
  dataDir?: string;
  model?: string;
  smallModel?: string;
  agent?: string;
  tools?: string[];
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  timeout?: string;
  record?: string;
  replay?: string;
  continue: boolean;
  session?: string;
  ephemeral: boolean;
  /** A JSON Schema file the final answer must match. */
  outputSchema?: string;
  /** Resolve and describe the run; no model call, nothing written. */
  dryRun?: boolean;
  /** `--trust-project`: the project's own config files count like the operator's. */
  trustProject?: boolean;
  onDeny: OnDeny;
  verbose: boolean;
  /** `--sandbox off`: the model's commands run without the OS jail (operator only). */
  sandbox?: "on" | "off";
}

/** The profile `agent` tool calls run with. */
export const SUB_AGENT_PROFILE = "task";

export interface ResolvedRun {
  cwd: string;
  loaded: LoadedConfig;
  /** What the project's config asked for and did not get (its load, then its narrowing). */
  projectIgnored: IgnoredKey[];
  profile: Profile;
  model: ResolvedModel;
  smallModel: ResolvedModel;
  /**
   * How `agent` tool calls run: the task profile, on the model it names or else the
   * small model. Absent when the run's profile does not offer `agent`.
   */
  subAgent?: { profile: Profile; operatorProfile: Profile; model: ResolvedModel };
  limits: Limits;
  /** Everything the run may use (what `mopac sandbox` prints). */
  needs: Need[];
  /** What the run cannot start without (checked by the preflight). */
  required: Need[];
  /** How the model's processes are jailed (the OS jail, not Deno's permissions). */
  jail: JailChoice;
}

type ResolveArgs = Pick<
  RunOptions,
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
  | "outputSchema"
  | "sandbox"
  | "trustProject"
>;

export async function resolveRun(args: ResolveArgs): Promise<ResolvedRun> {
  const cwd = resolve(args.cwd ?? Deno.cwd());
  const models: Record<string, { model: string }> = {};
  if (args.model) models.large = { model: args.model };
  if (args.smallModel) models.small = { model: args.smallModel };
  // Config under an unreadable cwd would be skipped as absent, and the run would fail
  // later for a confusing reason ("no model selected"): name the flag instead.
  requireRead(cwd);
  const flags: Record<string, unknown> = Object.keys(models).length > 0 ? { models } : {};
  if (args.sandbox) flags.options = { sandbox: args.sandbox };
  const loaded = await loadRunConfig({
    cwd,
    configFile: args.config,
    dataDir: args.dataDir,
    // Strict: a `$VAR` the sandbox hides is an error naming --allow-env=VAR, not "".
    env: strictEnv,
    flags,
    trustProject: args.trustProject,
  });
  const { config } = loaded;
  const { narrowing } = loaded.project;
  // The operator's profile and limits first: what the project narrows is measured against them.
  const operatorProfile = resolveProfile(args.agent, config, { tools: args.tools });
  const profile = applyNarrowing(operatorProfile, narrowing);
  const ctx: ResolveContext = {
    config,
    env: strictEnv,
    keyOptional: args.replay !== undefined,
    unsetVars: (path) => loaded.unsetVars?.(path) ?? [],
  };
  // -m wins over the profile's model, which wins over models.large.
  const model = withKeyVar(
    resolveModel(args.model ? "large" : profile.model ?? "large", ctx),
    loaded,
  );
  const smallModel = config.models?.small || args.smallModel
    ? withKeyVar(resolveModel("small", ctx), loaded)
    : model;
  const subAgent = profile.tools.has("agent")
    ? resolveSubAgent(loaded, ctx, smallModel, profile)
    : undefined;
  const flagLimits = {
    max_turns: args.maxTurns,
    max_tokens: args.maxTokens,
    max_cost: args.maxCost,
    timeout: args.timeout,
  };
  const limits = resolveLimits(
    flagLimits,
    profile,
    config.limits,
    capsFor(narrowing, profile.name),
  );
  const projectIgnored = [
    ...loaded.project.ignored,
    ...wideningAttempts(
      loaded,
      operatorProfile,
      resolveLimits(flagLimits, operatorProfile, config.limits),
    ),
    ...(subAgent ? wideningAttempts(loaded, subAgent.operatorProfile, {}) : []),
  ];
  const offered = BUILTIN_TOOL_NAMES.filter((t) => profile.tools.has(t));
  const servers = serversFor(config, profile);
  const jail = jailChoice(loaded, profile, servers, subAgent?.profile);
  const needs = permissionNeeds({
    dataDir: loaded.dataDir,
    configFiles: loaded.files,
    workspace: loaded.workspaceRoot,
    providerUrl: args.replay ? undefined : model.base_url,
    mcp: Object.entries(servers).map(([name, s]) => ({
      name,
      type: transportKind(s),
      // A jailed server is started by the jail's backend, not by mopac.
      command: jail.mode === "on" && jailedServer(s) ? jailCommand() ?? s.command : s.command,
      url: s.url,
      envVars: s.env_vars,
    })),
    tools: offered,
    envVars: [
      ...loaded.referencedEnv,
      ...[model, smallModel, subAgent?.model].map(keyVar).filter((v) => v !== undefined),
      // A run under the printed flags must find the same config and trust the project alike.
      ...loaded.envUsed,
    ],
    fetchHosts: profile.fetchHosts,
    hooks: (config.hooks?.PreToolUse ?? []).length > 0,
    smallModelUrl: args.replay ? undefined : smallModel.base_url,
    subAgentModelUrl: args.replay ? undefined : subAgent?.model.base_url,
  });
  needs.push(...jailNeeds(jail));
  for (const [name, s] of Object.entries(servers)) {
    if (!jailedServer(s)) continue;
    const why = `MCP server "${name}" in the OS jail`;
    needs.push(...jailNeeds({ ...jail, needed: true, network: serverNetwork(s), why }));
  }
  if (args.record) needs.push({ kind: "write", path: resolve(cwd, args.record), why: "--record" });
  if (args.replay) {
    const cassette = resolve(cwd, args.replay);
    needs.push({ kind: "read", path: cassette, why: "--replay" });
    requireFile(cassette, "--replay");
  }
  if (args.outputSchema) {
    needs.push({ kind: "read", path: resolve(cwd, args.outputSchema), why: "--output-schema" });
  }
  return {
    cwd,
    loaded,
    projectIgnored,
    profile,
    model,
    smallModel,
    subAgent,
    limits,
    needs,
    required: requiredNeeds(needs),
    jail,
  };
}

/**
 * The task profile within the run's own (a child never does what its parent may
 * not: `--tools`, `fetch.hosts`, `paths.deny` and the rest carry over), and its
 * model: the one it names, or else the small model.
 */
function resolveSubAgent(
  loaded: LoadedConfig,
  ctx: ResolveContext,
  smallModel: ResolvedModel,
  parent: Profile,
): { profile: Profile; operatorProfile: Profile; model: ResolvedModel } {
  const operatorProfile = resolveProfile(SUB_AGENT_PROFILE, loaded.config);
  const profile = withinParent(applyNarrowing(operatorProfile, loaded.project.narrowing), parent);
  const model = profile.model ? withKeyVar(resolveModel(profile.model, ctx), loaded) : smallModel;
  return { profile, operatorProfile, model };
}

/** An untrusted project's caps on the limits of profile `name`: its own and the global ones. */
function capsFor(narrowing: Narrowing, name: string): LimitCaps {
  const own = Object.hasOwn(narrowing.agents, name) ? narrowing.agents[name].limits : {};
  return lowerCaps(narrowing.limits, own);
}

/**
 * Names the variable behind `"api_key": "$VAR"`: the catalog sees only the expanded
 * value, and an auth error should say which variable to fix.
 */
export function withKeyVar(model: ResolvedModel, loaded: LoadedConfig): ResolvedModel {
  const path = `providers.${model.provider_id}.api_key`;
  if (model.api_key_source !== path || !model.api_key) return model;
  const name = loaded.referencedEnv.find((n) => readEnv(n) === model.api_key);
  return name ? { ...model, api_key_source: `$${name} (${path})` } : model;
}

/** Reads a variable; NotCapable (not granted) is thrown for the caller to name the flag. */
function strictEnv(name: string): string | undefined {
  return Deno.env.get(name);
}

function requireRead(path: string): void {
  if (granted({ name: "read", path })) return;
  throw new SandboxError(
    `Deno's permissions do not let mopac read the working directory ${path} ` +
      "(its config files and workspace)",
    `--allow-read=${path}`,
  );
}

/** The env var holding the model's key, when the key comes from one. */
function keyVar(model: ResolvedModel | undefined): string | undefined {
  if (!model) return undefined;
  const m = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(model.api_key_source);
  return m?.[1];
}

/** A missing input file is a usage error before anything starts (exit 2, not a failed request). */
function requireFile(path: string, flag: string): void {
  try {
    if (Deno.statSync(path).isFile) return;
  } catch (err) {
    // Without read permission the preflight names the flag instead.
    if (err instanceof Deno.errors.NotCapable) return;
  }
  throw new UsageError(`${flag} ${path}: no such file`);
}
