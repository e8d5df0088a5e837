/**
 * What an untrusted project's config does to the operator's: it narrows, and what
 * it asked for but may not have is recorded so that mopac can say so. Narrowing is
 * applied after every layer, flags included: a project can lower a limit the
 * operator set on the command line, never raise one.
 */

/** A key of a project file that was not used, and why. */
export interface IgnoredKey {
  /** The config file (absolute path). */
  file: string;
  /** Dotted path of the key (`providers`, `agents.coder.bash.allow`); `*` for the whole file. */
  key: string;
  reason: string;
}

/** Upper bounds on the run's limits (`timeout` in seconds); absent: no bound from the project. */
export interface LimitCaps {
  max_turns?: number;
  max_tokens?: number;
  max_cost?: number;
  timeout?: number;
}

/** The narrowing of one profile. */
export interface ProfileNarrowing {
  /** Each list keeps only the built-in tools it names. */
  allowed_tools: string[][];
  /** Added to the profile's `bash.deny`. */
  bash_deny: string[];
  /** Added to the profile's `paths.deny`. */
  paths_deny: string[];
  /** `bash.network: "none"`: the profile's jailed commands get no network. */
  bash_network_none?: boolean;
  limits: LimitCaps;
}

export interface Narrowing {
  /** Each list narrows every profile, like `permissions.allowed_tools` does. */
  allowed_tools: string[][];
  limits: LimitCaps;
  /** By profile name; only profiles that exist without the project. */
  agents: Record<string, ProfileNarrowing>;
}

export function emptyNarrowing(): Narrowing {
  return { allowed_tools: [], limits: {}, agents: {} };
}

/** Both narrowings at once: lists add up, the lower cap wins. */
export function combineNarrowing(a: Narrowing, b: Narrowing): Narrowing {
  const agents: Record<string, ProfileNarrowing> = { ...a.agents };
  for (const [name, p] of Object.entries(b.agents)) {
    const q = agents[name];
    agents[name] = q
      ? {
        allowed_tools: [...q.allowed_tools, ...p.allowed_tools],
        bash_deny: [...q.bash_deny, ...p.bash_deny],
        paths_deny: [...q.paths_deny, ...p.paths_deny],
        ...(q.bash_network_none || p.bash_network_none ? { bash_network_none: true } : {}),
        limits: lowerCaps(q.limits, p.limits),
      }
      : p;
  }
  return {
    allowed_tools: [...a.allowed_tools, ...b.allowed_tools],
    limits: lowerCaps(a.limits, b.limits),
    agents,
  };
}

export function lowerCaps(a: LimitCaps, b: LimitCaps): LimitCaps {
  const out: LimitCaps = {};
  for (const key of ["max_turns", "max_tokens", "max_cost", "timeout"] as const) {
    const values = [a[key], b[key]].filter((v): v is number => v !== undefined);
    if (values.length > 0) out[key] = Math.min(...values);
  }
  return out;
}

/** Whether the narrowing changes nothing. */
export function isEmptyNarrowing(n: Narrowing): boolean {
  return n.allowed_tools.length === 0 && Object.keys(n.limits).length === 0 &&
    Object.keys(n.agents).length === 0;
}
