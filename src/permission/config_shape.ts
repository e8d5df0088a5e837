/**
 * The parts of the config this folder reads, described structurally so that
 * `src/permission` does not depend on `src/config`: any object with these fields
 * (the validated config included) can be passed in.
 */

/** A duration as config or a flag writes it: "90s", "10m", "1h", or a number of seconds. */
export type DurationInput = string | number;

/** Limits as config writes them (top-level `limits` and each agent). */
export interface LimitsInput {
  max_turns?: number | string;
  max_tokens?: number | string;
  max_cost?: number | string;
  timeout?: DurationInput;
}

/** `bash.network`: what jailed commands may reach. */
export type NetworkInput = "none" | "all" | { hosts: string[] };

/** One entry of config `agents`. */
export interface AgentInput extends LimitsInput {
  model?: string;
  prompt?: string;
  prompt_file?: string;
  allowed_tools?: string[];
  /** Server name → tool names or globs on the server's own tool names, or true for all. */
  allowed_mcp?: Record<string, string[] | true | boolean>;
  bash?: { allow?: string[]; deny?: string[]; network?: NetworkInput };
  paths?: { read?: string[]; write?: string[]; deny?: string[] };
  fetch?: { hosts?: string[] };
  /** Rules `--allow` may add to this profile for one run. */
  flag_allow?: string[];
}

/** One `hooks.PreToolUse` entry, crush's format. */
export interface HookInput {
  /** Regular expression on the tool name; absent or empty matches every tool. */
  matcher?: string;
  /** Run with `bash -c`; the call's JSON arrives on stdin. */
  command: string;
  /** Seconds; default 30. */
  timeout?: number;
}

/**
 * What an untrusted project narrows (src/config's Narrowing): lists that each narrow
 * the tools, deny rules added, and caps on the limits.
 */
export interface NarrowingInput {
  allowed_tools: readonly (readonly string[])[];
  limits: LimitsInput;
  agents: Readonly<
    Record<string, {
      allowed_tools: readonly (readonly string[])[];
      bash_deny: readonly string[];
      paths_deny: readonly string[];
      bash_network_none?: boolean;
      limits: LimitsInput;
    }>
  >;
}

/** What profile resolution reads from the config. */
export interface PermissionConfigInput {
  agents?: Record<string, AgentInput | undefined>;
  permissions?: { allowed_tools?: string[] };
  /** `disabled_tools` (crush's key): built-in tools no profile offers. */
  options?: { default_agent?: string; disabled_tools?: string[] };
  limits?: LimitsInput;
  hooks?: { PreToolUse?: HookInput[] };
}
