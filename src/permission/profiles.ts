/**
 * Agent profiles ("verticals"): what one run may use. Every profile is an explicit
 * allowlist. Listing a tool grants its default scope and nothing more:
 *  - file tools: reads and writes inside the workspace;
 *  - `bash`: any command the built-in ban list lets through;
 *  - `fetch`: any host for a user profile; a built-in profile (`coder`, `task`)
 *    offers fetch only when its `fetch.hosts` lists hosts (none by default).
 * A rule block narrows or redirects that scope to exactly what it lists:
 *  - `paths.write` present: writes only where it matches (the workspace default is
 *    dropped); absolute globs may name places outside the workspace;
 *  - `paths.read`: extra places to read besides the workspace;
 *  - `paths.deny`: never read or written, whatever else allows it;
 *  - `bash.allow`/`bash.deny`: command patterns (see shell_rules.ts);
 *  - `bash.network`: what jailed commands may reach ("none" by default);
 *  - `fetch.hosts`: only these hosts.
 * MCP tools are offered only as `allowed_mcp` says (the built-in `coder` allows
 * every configured server). Narrowing (`--tools`, `permissions.allowed_tools`,
 * `options.disabled_tools`, an untrusted project's narrowing) intersects, removes or
 * adds deny rules, and can never widen. A sub-agent's profile lies `within` its
 * parent's: a call must pass both (see `withinParent`).
 */
import { ConfigError, UsageError } from "../util/errors.ts";
import type {
  AgentInput,
  LimitsInput,
  NarrowingInput,
  NetworkInput,
  PermissionConfigInput,
} from "./config_shape.ts";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../domain/tool_records.ts";
import type { BuiltinProfileName } from "../domain/profile_names.ts";

/** Built-in tools by name; the list is the registry's (src/domain/tool_records.ts). */
const BUILTIN_TOOLS: readonly string[] = BUILTIN_TOOL_NAMES;

const READONLY_TOOLS: BuiltinToolName[] = ["view", "ls", "glob", "grep", "todos"];

/** MCP allowance: every configured server, or per server all tools / name globs. */
export type McpAllowance = "all" | Readonly<Record<string, true | readonly string[]>>;

export interface Profile {
  name: string;
  builtin: boolean;
  /** Built-in tools the profile offers. */
  tools: ReadonlySet<string>;
  mcp: McpAllowance;
  /**
   * Narrowing filters on MCP tools' model-visible names (`mcp_<server>_<tool>`),
   * added by `--tools` and `permissions.allowed_tools`; a tool must match every list.
   */
  mcpNameFilters: ReadonlyArray<readonly string[]>;
  /** What added each of `mcpNameFilters` (`--tools`, …), for denial messages. */
  mcpNameFilterSources?: readonly string[];
  /**
   * Built-in tools the profile lists but a narrowing took away, with what took each
   * (`--tools`, `options.disabled_tools`, …): a denial blames that, not the profile.
   */
  narrowedOut?: ReadonlyMap<string, string>;
  bash?: { allow?: string[]; deny?: string[]; network?: NetworkInput };
  paths: {
    read: readonly string[];
    /** Absent: writes inside the workspace. Present: exactly these globs. */
    write?: readonly string[];
    deny: readonly string[];
    /**
     * `--add-dir` folders (real paths): read and written like the workspace, whatever
     * `write` says; `deny` still holds in them, its relative globs from each folder too.
     */
    dirs?: readonly string[];
  };
  /** Absent: any host. */
  fetchHosts?: readonly string[];
  limits: LimitsInput;
  model?: string;
  prompt?: string;
  prompt_file?: string;
  /**
   * The profile of the run that started this one (a sub-agent's parent): every rule
   * of it holds here too, so a child can never do what its parent may not.
   */
  within?: Profile;
  /** Tools `options.disabled_tools` took away (for messages). */
  disabled?: readonly string[];
  /** Rules `--allow` may add for one run (flag_rules.ts); absent: none. */
  flagAllow?: readonly string[];
}

const BUILTIN_PROFILES: Record<BuiltinProfileName, AgentInput & { mcpAll?: boolean }> = {
  coder: { allowed_tools: [...BUILTIN_TOOLS], mcpAll: true },
  readonly: { allowed_tools: READONLY_TOOLS },
  task: { allowed_tools: [...READONLY_TOOLS, "fetch"] },
};

const BUILTIN_PROFILE_NAMES: readonly string[] = Object.keys(BUILTIN_PROFILES);

/**
 * The profile a run uses: `name` (from `-a`), else `options.default_agent`, else
 * `coder`; then narrowed by `permissions.allowed_tools`, `options.disabled_tools`,
 * `--tools` (checked against the operator's profile, so naming a tool it lacks is an
 * error), and last by what an untrusted project narrows.
 */
export function resolveProfile(
  name: string | undefined,
  cfg: PermissionConfigInput,
  options: { tools?: string | readonly string[]; narrowing?: NarrowingInput } = {},
): Profile {
  const chosen = name ?? cfg.options?.default_agent ?? "coder";
  const user = cfg.agents?.[chosen];
  const builtin = Object.hasOwn(BUILTIN_PROFILES, chosen)
    ? BUILTIN_PROFILES[chosen as BuiltinProfileName]
    : undefined;
  if (!user && !builtin) {
    const known = [...new Set([...BUILTIN_PROFILE_NAMES, ...Object.keys(cfg.agents ?? {})])];
    throw new UsageError(`unknown agent profile "${chosen}"; known: ${known.sort().join(", ")}`);
  }
  // A config entry named like a built-in refines it: fields it leaves out keep the built-in's.
  let profile = buildProfile(chosen, refine(builtin, user), builtin !== undefined && !user, {
    mcpAll: builtin?.mcpAll === true && user?.allowed_mcp === undefined,
  });
  // A built-in profile fetches only from hosts the operator lists (none by default).
  if ((builtin && !profile.fetchHosts?.length) || profile.fetchHosts?.length === 0) {
    profile = withoutTools(profile, ["fetch"]);
  }
  const disabled = cfg.options?.disabled_tools ?? [];
  if (disabled.length > 0) {
    profile = { ...withoutTools(profile, disabled, "options.disabled_tools"), disabled };
  }
  // The job tools only follow bash's background jobs: without bash they have nothing to do.
  if (!profile.tools.has("bash")) profile = withoutTools(profile, ["job_output", "job_kill"]);
  const global = cfg.permissions?.allowed_tools;
  if (global) profile = narrowProfile(profile, crushToolNames(global), "config");
  if (options.tools !== undefined) {
    profile = narrowProfile(profile, splitList(options.tools), "flag");
  }
  return options.narrowing ? applyNarrowing(profile, options.narrowing) : profile;
}

/**
 * An untrusted project's narrowing: its `permissions.allowed_tools` lists narrow
 * like the operator's, its `agents.<this profile>` keeps only the built-in tools it
 * lists and adds its deny rules, and may take the jail's network away ("none").
 * Limits are capped where limits are resolved.
 */
export function applyNarrowing(profile: Profile, narrowing: NarrowingInput): Profile {
  let out = profile;
  for (const list of narrowing.allowed_tools) {
    out = narrowProfile(
      out,
      crushToolNames(list),
      "config",
      "the project's permissions.allowed_tools",
    );
  }
  const own = Object.hasOwn(narrowing.agents, profile.name)
    ? narrowing.agents[profile.name]
    : undefined;
  if (!own) return out;
  for (const list of own.allowed_tools) {
    const kept = [...out.tools].filter((t) => list.includes(t));
    out = withTools(out, kept, `the project's agents.${profile.name}.allowed_tools`);
  }
  const tools = out.tools;
  let bash = out.bash;
  if (own.bash_deny.length > 0) bash = { ...bash, deny: [...(bash?.deny ?? []), ...own.bash_deny] };
  if (own.bash_network_none) bash = { ...bash, network: "none" };
  return {
    ...out,
    tools,
    bash,
    paths: { ...out.paths, deny: [...out.paths.deny, ...own.paths_deny] },
  };
}

function buildProfile(
  name: string,
  entry: AgentInput,
  builtin: boolean,
  extra: { mcpAll: boolean },
): Profile {
  const tools = entry.allowed_tools ?? [];
  const unknown = tools.filter((t) => !BUILTIN_TOOLS.includes(t));
  if (unknown.length > 0) {
    throw new ConfigError(
      `agents.${name}.allowed_tools: unknown tool ${unknown.map((t) => `"${t}"`).join(", ")}; ` +
        `built-in tools are ${BUILTIN_TOOLS.join(", ")} (MCP tools go in allowed_mcp)`,
    );
  }
  return {
    name,
    builtin,
    tools: new Set(tools),
    mcp: extra.mcpAll ? "all" : mcpAllowance(entry.allowed_mcp),
    mcpNameFilters: [],
    bash: entry.bash,
    paths: {
      read: entry.paths?.read ?? [],
      write: entry.paths?.write,
      deny: entry.paths?.deny ?? [],
    },
    fetchHosts: entry.fetch?.hosts,
    limits: pickLimits(entry),
    model: entry.model,
    prompt: entry.prompt,
    prompt_file: entry.prompt_file,
    ...(entry.flag_allow ? { flagAllow: entry.flag_allow } : {}),
  };
}

/** `profile` without `names`; with a `label`, a narrowing the denial of such a call names. */
function withoutTools(profile: Profile, names: readonly string[], label?: string): Profile {
  const kept = [...profile.tools].filter((t) => !names.includes(t));
  return label ? withTools(profile, kept, label) : { ...profile, tools: new Set(kept) };
}

/**
 * A sub-agent's profile inside its parent's: only tools both offer, MCP tools both
 * allow, and every rule of both (bash, paths, hosts) holds, checked by the gate on
 * each call (`within`). Limits are the caller's business (what is left of the run's).
 */
export function withinParent(child: Profile, parent: Profile): Profile {
  return {
    ...child,
    name: `${child.name} (within ${parent.name})`,
    tools: new Set([...child.tools].filter((t) => parent.tools.has(t))),
    mcpNameFilters: [...child.mcpNameFilters, ...parent.mcpNameFilters],
    within: parent,
  };
}

function refine(base: AgentInput | undefined, over: AgentInput | undefined): AgentInput {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) if (value !== undefined) out[key] = value;
  return out as AgentInput;
}

function mcpAllowance(allowed: AgentInput["allowed_mcp"]): McpAllowance {
  const out: Record<string, true | readonly string[]> = {};
  for (const [server, value] of Object.entries(allowed ?? {})) {
    if (value === true) out[server] = true;
    else if (Array.isArray(value)) out[server] = [...value];
  }
  return out;
}

function pickLimits(entry: AgentInput): LimitsInput {
  const { max_turns, max_tokens, max_cost, timeout } = entry;
  return { max_turns, max_tokens, max_cost, timeout };
}

/**
 * Keeps only the tools named in `list`: built-in names exactly, MCP tools by their
 * model-visible name or a glob on it (`mcp_github_*`). A `flag` list naming a tool
 * that does not exist, or a built-in tool the profile does not offer, is a usage
 * error; a `config` list (crush's key, which may name crush-only tools) ignores
 * unknown names.
 */
export function narrowProfile(
  profile: Profile,
  list: readonly string[],
  source: "flag" | "config",
  label = source === "flag" ? "--tools" : "permissions.allowed_tools",
): Profile {
  const mcpGlobs = list.filter((t) => t.startsWith("mcp_"));
  const builtins = list.filter((t) => !t.startsWith("mcp_"));
  const unknown = builtins.filter((t) => !BUILTIN_TOOLS.includes(t));
  if (source === "flag" && unknown.length > 0) {
    throw new UsageError(
      `--tools: unknown tool ${unknown.map((t) => `"${t}"`).join(", ")}; ` +
        `known: ${BUILTIN_TOOLS.join(", ")}, or mcp_<server>_<tool> names and globs`,
    );
  }
  // A flag naming a tool the profile does not offer is a mistake to report, not to
  // drop quietly: the run would otherwise go ahead without a tool the caller expected.
  const outside = builtins.filter((t) => BUILTIN_TOOLS.includes(t) && !profile.tools.has(t));
  if (source === "flag" && outside.length > 0) {
    const why = outside.map((t) =>
      profile.disabled?.includes(t)
        ? ` ("${t}" is in options.disabled_tools)`
        : t === "fetch" && BUILTIN_PROFILE_NAMES.includes(profile.name) &&
            !profile.fetchHosts?.length
        ? ` (fetch is offered only for the hosts listed in agents.${profile.name}.fetch.hosts)`
        : ""
    ).join("");
    throw new UsageError(
      `--tools: ${outside.map((t) => `"${t}"`).join(", ")} not allowed by profile ` +
        `"${profile.name}"${why} (--tools can only narrow; the profile offers ` +
        `${[...profile.tools].sort().join(", ") || "no built-in tools"})`,
    );
  }
  const narrowed = withTools(
    profile,
    [...profile.tools].filter((t) => builtins.includes(t)),
    label,
  );
  return {
    ...narrowed,
    mcpNameFilters: [...profile.mcpNameFilters, mcpGlobs],
    mcpNameFilterSources: [...(profile.mcpNameFilterSources ?? []), label],
  };
}

/** `profile` offering only `kept`; what it loses is recorded as taken by `label`. */
function withTools(profile: Profile, kept: readonly string[], label: string): Profile {
  const out = new Map(profile.narrowedOut);
  for (const t of profile.tools) if (!kept.includes(t)) out.set(t, label);
  return { ...profile, tools: new Set(kept), narrowedOut: out };
}

/** crush writes `tool` or `tool:action`; mopac has no actions, so the tool is what counts. */
function crushToolNames(list: readonly string[]): string[] {
  return list.map((t) => t.split(":")[0].trim()).filter((t) => t !== "");
}

function splitList(value: string | readonly string[]): string[] {
  const parts = typeof value === "string" ? value.split(",") : value.flatMap((v) => v.split(","));
  return parts.map((t) => t.trim()).filter((t) => t !== "");
}
