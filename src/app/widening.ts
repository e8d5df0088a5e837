/**
 * What an untrusted project's narrowing asked for beyond the operator's profile: tools
 * the profile does not offer, limits above the operator's. Narrowing cannot widen
 * (tool lists intersect, the lower limit wins); this says so, so that nothing a
 * project asked for is dropped without a word.
 */
import type { IgnoredKey, LimitCaps, LoadedConfig } from "../config/mod.ts";
import type { Limits } from "../agent/limits.ts";
import type { Profile } from "../permission/profiles.ts";
import { BUILTIN_TOOL_NAMES } from "../domain/tool_records.ts";

const TOOLS: readonly string[] = BUILTIN_TOOL_NAMES;

/**
 * `profile` and `limits` are the operator's, before the project's narrowing: the
 * profile a run uses and the limits it would have without the project.
 */
export function wideningAttempts(
  loaded: LoadedConfig,
  profile: Profile,
  limits: Limits,
): IgnoredKey[] {
  const out: IgnoredKey[] = [];
  const name = profile.name;
  for (const { file, narrowing } of loaded.project.narrowingByFile) {
    const own = Object.hasOwn(narrowing.agents, name) ? narrowing.agents[name] : undefined;
    const lists: Array<[string, readonly string[][]]> = [
      ["permissions.allowed_tools", narrowing.allowed_tools],
      [`agents.${name}.allowed_tools`, own?.allowed_tools ?? []],
    ];
    for (const [key, each] of lists) {
      const extra = [...new Set(each.flat().map((t) => t.split(":")[0].trim()))]
        .filter((t) => TOOLS.includes(t) && !profile.tools.has(t));
      if (extra.length > 0) {
        out.push({
          file,
          key,
          reason: `profile "${name}" of the operator does not offer ${extra.join(", ")}`,
        });
      }
    }
    above(narrowing.limits, "limits", limits, file, out);
    if (own) above(own.limits, `agents.${name}`, limits, file, out);
  }
  return out;
}

function above(caps: LimitCaps, prefix: string, limits: Limits, file: string, out: IgnoredKey[]) {
  const operator: LimitCaps = {
    max_turns: limits.max_turns,
    max_tokens: limits.max_tokens,
    max_cost: limits.max_cost,
    timeout: limits.timeout_ms === undefined ? undefined : limits.timeout_ms / 1000,
  };
  for (const key of ["max_turns", "max_tokens", "max_cost", "timeout"] as const) {
    const cap = caps[key];
    const own = operator[key];
    if (cap !== undefined && own !== undefined && cap > own) {
      out.push({ file, key: `${prefix}.${key}`, reason: `above the operator's limit (${own})` });
    }
  }
}
