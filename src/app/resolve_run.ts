/**
 * The first step of a run: what it is, before anything starts. Config, the agent
 * profile, the models (large, small, and the one `agent` tool calls run on), limits,
 * and the Deno permissions it needs. Shared by `run`, `run --dry-run` and `sandbox`.
 */
import { dirname, resolve } from "node:path";
import {
  CONFIG_ENV_PATTERN,
  type IgnoredKey,
  type LimitCaps,
  type LoadedConfig,
  lowerCaps,
  type Narrowing,
  oauthTokenDir,
} from "../config/mod.ts";
import { type ResolveContext, resolveModel } from "../catalog/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import {
  applyNarrowing,
  narrowProfile,
  type Profile,
  resolveProfile,
  withinParent,
} from "../permission/profiles.ts";
import { applyFlagRules } from "../permission/flag_rules.ts";
import { wideningAttempts } from "./widening.ts";
import { BUILTIN_TOOL_NAMES } from "../domain/tool_records.ts";
import { type Limits, type OnDeny, resolveLimits } from "../agent/limits.ts";
import { hostOf, type Need, permissionNeeds, requiredNeeds } from "../deno_perms/needs.ts";
import { transportKind } from "../mcp/config.ts";
import { oauthMode } from "../mcp/oauth/settings.ts";
import { readEnv } from "../util/env.ts";
import { MopacError, SandboxError, UsageError } from "../util/errors.ts";
import { serversFor } from "./tooling.ts";
import { type JailChoice, jailChoice, jailedServer, serverNetwork } from "./jail_choice.ts";
import { jailCommand, jailNeeds } from "../jail/mod.ts";
import { loadRunConfig } from "./load_config.ts";
import { requireFile, requireFolder, requireRead } from "./run_inputs.ts";
import { findResumeTarget, restoreModel, type ResumeTarget } from "./resume_target.ts";
import { addDirNeeds, resolveAddDirs, withAddDirs } from "./add_dirs.ts";
import { requireAttachments } from "./attachments.ts";

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
  /** `--fork`: continue `-C`'s or `-s`'s session in a new session copying its history. */
  fork?: boolean;
  /** `--session-id`: the id of the new session the run writes (refused when it exists). */
  sessionId?: string;
  ephemeral: boolean;
  /** A JSON Schema file the final answer must match. */
  outputSchema?: string;
  /** A file the final answer is written to (`--output-last-message`). */
  outputLastMessage?: string;
  /** Resolve and describe the run; no model call, nothing written. */
  dryRun?: boolean;
  /** `--trust-project`: the project's own config files count like the operator's. */
  trustProject?: boolean;
  onDeny: OnDeny;
  verbose: boolean;
  /** `--sandbox off`: the model's commands run without the OS jail (operator only). */
  sandbox?: "on" | "off";
  /** `-c KEY=VALUE` settings, in order: config layers above the environment. */
  settings?: string[];
  /** `--add-dir`: more folders the file tools and the OS jail may write (relative to cwd). */
  addDirs?: string[];
  /** `-i FILE`: images attached to the prompt (relative to cwd). */
  images?: string[];
  /** `-f FILE` (read by the CLI), `--system-prompt-file`, `--append-system-prompt`. */
  promptFile?: string;
  systemPromptFile?: string;
  appendSystemPrompt?: string;
  /** `--fallback-model`: the model a turn is retried on once the main model failed for good. */
  fallbackModel?: string;
  /** `--allow` / `--deny`: rules added to the active profile for this run (flag_rules.ts). */
  allowRules?: string[];
  denyRules?: string[];
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
  /** `--fallback-model`, resolved. */
  fallbackModel?: ResolvedModel;
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
  /** The session `-C` or `-s` continues. */
  resume?: ResumeTarget;
  /**
   * What the run should say on stderr before it starts (a model not restored, an
   * `--allow` with nothing to add).
   */
  notes: string[];
}

type ResolveArgs =
  & Pick<
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
    | "outputLastMessage"
    | "sandbox"
    | "trustProject"
    | "settings"
    | "addDirs"
    | "allowRules"
    | "denyRules"
    | "fallbackModel"
    | "promptFile"
    | "systemPromptFile"
    | "images"
  >
  & Partial<Pick<RunOptions, "continue" | "session">>;

/**
 * What `mopac sandbox` resolves: a run's plan, where the model may be missing (the
 * run will be given `-m`), and then no provider host or key is among the needs.
 */
export type SandboxPlan = Omit<ResolvedRun, "model" | "smallModel" | "subAgent"> & {
  model?: ResolvedModel;
  smallModel?: ResolvedModel;
  subAgent?: { profile: Profile; operatorProfile: Profile; model?: ResolvedModel };
};

export async function resolveRun(args: ResolveArgs): Promise<ResolvedRun> {
  const plan = await resolvePlan(args, false);
  // Without modelOptional an unselected model has thrown already.
  if (!plan.model || !plan.smallModel || (plan.subAgent && !plan.subAgent.model)) {
    throw new Error("resolveRun: a model is missing");
  }
  return plan as ResolvedRun;
}

/** `mopac sandbox`'s plan: the same as a run's, but no selected model is no error. */
export async function resolveSandbox(args: ResolveArgs): Promise<SandboxPlan> {
  const plan = await resolvePlan(args, true);
  if (!plan.model) {
    plan.notes.push(
      "mopac: no model selected, so no provider's host or key is among the flags; " +
        "give sandbox the -m the run will get",
    );
  }
  return plan;
}

async function resolvePlan(args: ResolveArgs, modelOptional: boolean): Promise<SandboxPlan> {
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
    settings: args.settings,
  });
  const { config } = loaded;
  const { narrowing } = loaded.project;
  // The operator's profile and limits first: what the project narrows is measured against them.
  // --allow before --tools (which may narrow what it added), --deny last.
  const allowed = applyFlagRules(resolveProfile(args.agent, config), {
    allow: args.allowRules ?? [],
    deny: [],
  });
  const narrowed = args.tools === undefined
    ? allowed.profile
    : narrowProfile(allowed.profile, args.tools, "flag");
  const denials = { allow: [], deny: args.denyRules ?? [] };
  const operatorProfile = applyFlagRules(narrowed, denials).profile;
  const addDirs = await resolveAddDirs(args.addDirs, { cwd, loaded });
  const profile = withAddDirs(applyNarrowing(operatorProfile, narrowing), addDirs);
  const ctx: ResolveContext = {
    config,
    env: strictEnv,
    keyOptional: args.replay !== undefined,
    unsetVars: (path) => loaded.unsetVars?.(path) ?? [],
  };
  const notes: string[] = [];
  // The session first: resuming needs no -m, and a wrong id is named before the model.
  const resume = await findResumeTarget(loaded.dataDir, {
    continue: args.continue === true,
    session: args.session,
  });
  // -m wins over the resumed session's model, over the profile's, over models.large.
  const restored = !args.model && resume?.lastModel
    ? restoreModel(resume.lastModel, ctx, loaded, notes)
    : undefined;
  const ref = args.model ? "large" : profile.model ?? "large";
  const unselected = !restored && (ref === "large" || ref === "small") &&
    !config.models?.large && !(ref === "small" && config.models?.small);
  const model = modelOptional && unselected
    ? undefined
    : withKeyVar(restored ?? resolveModel(ref, ctx), loaded);
  const smallModel = config.models?.small || args.smallModel
    ? withKeyVar(resolveModel("small", ctx), loaded)
    : model;
  const fallbackModel = args.fallbackModel === undefined
    ? undefined
    : withKeyVar(resolveFlagModel(args.fallbackModel, "--fallback-model", ctx), loaded);
  // Images need a model that takes them: the run's (a resumed session's too), and its fallback.
  if (model) requireAttachments(model, args.images ?? []);
  if (fallbackModel) requireAttachments(fallbackModel, args.images ?? [], "--fallback-model");
  const subAgent = profile.tools.has("agent")
    ? resolveSubAgent(loaded, ctx, smallModel, profile, addDirs)
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
    providerUrl: args.replay ? undefined : model?.base_url,
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
      ...[model, smallModel, subAgent?.model, fallbackModel].flatMap((
        m,
      ) => [keyVar(m), m?.base_url_env])
        .filter((v) => v !== undefined),
      // A run under the printed flags must find the same config and trust the project alike.
      ...loaded.envUsed,
    ],
    fetchHosts: profile.fetchHosts,
    hooks: (config.hooks?.PreToolUse ?? []).length > 0,
    smallModelUrl: args.replay ? undefined : smallModel?.base_url,
    subAgentModelUrl: args.replay ? undefined : subAgent?.model?.base_url,
    oauthDir: Object.values(servers).some((s) => oauthMode(s, transportKind(s)) !== "off")
      ? oauthTokenDir(readEnv)
      : undefined,
  });
  needs.push(...jailNeeds(jail), ...addDirNeeds(addDirs, offered));
  needs.push({ kind: "env", variable: CONFIG_ENV_PATTERN, why: "config from the environment" });
  const fallbackHost = fallbackModel && !args.replay ? hostOf(fallbackModel.base_url) : undefined;
  if (fallbackHost && !needs.some((n) => n.kind === "net" && n.host === fallbackHost)) {
    needs.push({ kind: "net", host: fallbackHost, why: "--fallback-model" });
  }
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
  if (args.outputLastMessage) {
    const file = resolve(cwd, args.outputLastMessage);
    needs.push({ kind: "write", path: file, why: "--output-last-message" });
    requireFolder(dirname(file), "--output-last-message");
  }
  if (args.systemPromptFile) {
    const path = resolve(cwd, args.systemPromptFile);
    needs.push({ kind: "read", path, why: "--system-prompt-file" });
  }
  for (const image of args.images ?? []) {
    needs.push({ kind: "read", path: resolve(cwd, image), why: "-i" });
  }
  if (args.promptFile && args.promptFile !== "-") {
    needs.push({ kind: "read", path: resolve(cwd, args.promptFile), why: "-f" });
  }
  return {
    cwd,
    loaded,
    projectIgnored,
    profile,
    model,
    smallModel,
    ...(fallbackModel ? { fallbackModel } : {}),
    subAgent,
    limits,
    needs,
    required: requiredNeeds(needs),
    jail,
    resume,
    notes: [...allowed.notes.map((n) => `mopac: ${n}`), ...notes],
  };
}

/**
 * The task profile within the run's own (a child never does what its parent may
 * not: `--tools`, `--deny`, `fetch.hosts`, `paths.deny` and the rest carry over), and its
 * model: the one it names, or else the small model.
 */
function resolveSubAgent(
  loaded: LoadedConfig,
  ctx: ResolveContext,
  smallModel: ResolvedModel | undefined,
  parent: Profile,
  addDirs: readonly string[],
): { profile: Profile; operatorProfile: Profile; model?: ResolvedModel } {
  const operatorProfile = resolveProfile(SUB_AGENT_PROFILE, loaded.config);
  const narrowed = applyNarrowing(operatorProfile, loaded.project.narrowing);
  const profile = withinParent(withAddDirs(narrowed, addDirs), parent);
  const model = profile.model ? withKeyVar(resolveModel(profile.model, ctx), loaded) : smallModel;
  return { profile, operatorProfile, model };
}

/** A model a flag names; an unknown one is a usage error naming the flag. */
function resolveFlagModel(spec: string, flag: string, ctx: ResolveContext): ResolvedModel {
  try {
    return resolveModel(spec, ctx);
  } catch (err) {
    if (!(err instanceof MopacError) || err instanceof SandboxError) throw err;
    throw new UsageError(`${flag} ${spec}: ${err.message}`, { hint: err.hint, cause: err });
  }
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

/** The env var holding the model's key, when the key comes from one. */
function keyVar(model: ResolvedModel | undefined): string | undefined {
  if (!model) return undefined;
  const m = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(model.api_key_source);
  return m?.[1];
}
