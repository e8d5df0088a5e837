/**
 * `--allow RULE` and `--deny RULE`: one run's changes to the active profile, in the
 * profile's own rule syntax:
 *   TOOL           a built-in tool (`fetch`); with --deny also an MCP tool's
 *                  model-facing name or a glob of it (`mcp_github_*`)
 *   bash:PATTERN   a command pattern as in `bash.allow`/`bash.deny`
 *   fetch:HOST     a host pattern as in `fetch.hosts` (--allow only)
 *   path:GLOB      a path glob as in `paths.deny` (--deny only)
 * A deny always applies: it removes the tool or adds the deny rule. An allow extends
 * the profile only where the operator's profile says so: its `flag_allow` lists the
 * rules flags may add, and each --allow rule must fall within one of them (a tool by
 * name; `bash:P` when P, read as a command, matches a `bash:` entry's pattern;
 * `fetch:H` when H matches a `fetch:` entry's host pattern). An allow of what the
 * profile allows already (a command when it has no `bash.allow`, a host when it has
 * no `fetch.hosts`) changes nothing and is said so. A built-in profile fetches only
 * from listed hosts, so `--allow fetch` there needs `--allow fetch:HOST` too. Nothing
 * here lifts the ban list or `paths.deny`.
 */
import { UsageError } from "../util/errors.ts";
import { BUILTIN_TOOL_NAMES } from "../domain/tool_records.ts";
import { BUILTIN_PROFILE_NAMES } from "../domain/profile_names.ts";
import { HostPatterns } from "./match.ts";
import type { Profile } from "./profiles.ts";
import { matchesPattern } from "./shell_rules.ts";

export interface FlagRules {
  allow: readonly string[];
  deny: readonly string[];
}

type Rule =
  | { kind: "tool"; name: string }
  | { kind: "bash" | "fetch" | "path"; pattern: string };

const BUILTIN: readonly string[] = BUILTIN_TOOL_NAMES;

/** The profile with the rules applied; `notes` says what an allow did not need to change. */
export function applyFlagRules(
  profile: Profile,
  rules: FlagRules,
): { profile: Profile; notes: string[] } {
  let out = profile;
  const notes: string[] = [];
  for (const text of rules.deny) out = deny(out, parseRule(text, "--deny"), text);
  // Tools first, so `--allow fetch:HOST --allow fetch` finds fetch offered.
  const allows = rules.allow.map((text) => ({ text, rule: parseRule(text, "--allow") }))
    .sort((a, b) => (a.rule.kind === "tool" ? 0 : 1) - (b.rule.kind === "tool" ? 0 : 1));
  for (const { text, rule } of allows) {
    const already = allowedAlready(out, rule);
    if (already) {
      notes.push(`--allow ${text}: ${already}; nothing to add`);
      continue;
    }
    if (!withinFlagAllow(profile.flagAllow ?? [], rule)) {
      throw new UsageError(
        `--allow ${text}: profile "${profile.name}" does not let flags allow this`,
        {
          hint: profile.flagAllow?.length
            ? `its flag_allow permits ${profile.flagAllow.join(", ")}`
            : `list the rules flags may add in agents.${profile.name}.flag_allow of your config`,
        },
      );
    }
    out = allow(out, rule);
  }
  // A built-in profile fetches only from listed hosts: an allowed fetch needs its hosts.
  if (
    isBuiltin(profile) && out.tools.has("fetch") && !profile.tools.has("fetch") &&
    !out.fetchHosts?.length
  ) {
    throw new UsageError(
      `--allow fetch: profile "${profile.name}" fetches only from listed hosts`,
      {
        hint: "add --allow fetch:HOST for each host (within its flag_allow)",
      },
    );
  }
  return { profile: out, notes };
}

function parseRule(text: string, flag: "--allow" | "--deny"): Rule {
  const colon = text.indexOf(":");
  const head = (colon < 0 ? text : text.slice(0, colon)).trim();
  const pattern = colon < 0 ? "" : text.slice(colon + 1).trim();
  if (colon < 0) {
    if (BUILTIN.includes(head)) return { kind: "tool", name: head };
    if (flag === "--deny" && head.startsWith("mcp_")) return { kind: "tool", name: head };
    throw new UsageError(`${flag} ${text}: unknown tool "${head}"`, {
      hint: `a rule is TOOL, bash:PATTERN, ${flag === "--allow" ? "fetch:HOST" : "path:GLOB"}; ` +
        `tools are ${BUILTIN.join(", ")}${
          flag === "--deny" ? " or mcp_<server>_<tool> globs" : ""
        }`,
    });
  }
  if (pattern === "") throw new UsageError(`${flag} ${text}: the rule has no pattern after ':'`);
  if (head === "bash") return { kind: "bash", pattern };
  if (head === "fetch" && flag === "--allow") return { kind: "fetch", pattern };
  if (head === "path" && flag === "--deny") return { kind: "path", pattern };
  const why = head === "fetch"
    ? "fetch has no deny list; use --deny fetch, or fetch.hosts in the profile"
    : head === "path"
    ? "paths are added with --add-dir"
    : `unknown rule kind "${head}"`;
  throw new UsageError(`${flag} ${text}: ${why}`, {
    hint: "--allow takes TOOL, bash:PATTERN or fetch:HOST; --deny takes TOOL, bash:PATTERN or " +
      "path:GLOB",
  });
}

function deny(profile: Profile, rule: Rule, text: string): Profile {
  if (rule.kind === "tool") {
    if (rule.name.startsWith("mcp_")) {
      return { ...profile, mcpNameFilters: [...profile.mcpNameFilters, [`!${rule.name}`]] };
    }
    return { ...profile, tools: new Set([...profile.tools].filter((t) => t !== rule.name)) };
  }
  if (rule.kind === "bash") {
    return {
      ...profile,
      bash: { ...profile.bash, deny: [...profile.bash?.deny ?? [], rule.pattern] },
    };
  }
  if (rule.kind === "path") {
    return { ...profile, paths: { ...profile.paths, deny: [...profile.paths.deny, rule.pattern] } };
  }
  throw new UsageError(`--deny ${text}: not a deny rule`);
}

/** Why the profile allows `rule` already, or undefined when an allow would add something. */
function allowedAlready(profile: Profile, rule: Rule): string | undefined {
  if (rule.kind === "tool") {
    return profile.tools.has(rule.name) ? `profile "${profile.name}" offers it` : undefined;
  }
  if (rule.kind === "bash" && profile.tools.has("bash") && profile.bash?.allow === undefined) {
    return `profile "${profile.name}" has no bash.allow list: every command the ban list lets through is allowed`;
  }
  // A user profile without fetch.hosts fetches from any host; a built-in one from none.
  if (
    rule.kind === "fetch" && profile.tools.has("fetch") && profile.fetchHosts === undefined &&
    !isBuiltin(profile)
  ) {
    return `profile "${profile.name}" has no fetch.hosts list: every host is allowed`;
  }
  return undefined;
}

function withinFlagAllow(entries: readonly string[], rule: Rule): boolean {
  return entries.some((entry) => {
    const colon = entry.indexOf(":");
    const head = (colon < 0 ? entry : entry.slice(0, colon)).trim();
    const pattern = colon < 0 ? "" : entry.slice(colon + 1).trim();
    if (rule.kind === "tool") return colon < 0 && head === rule.name;
    if (head !== rule.kind || pattern === "") return false;
    if (rule.kind === "bash") return matchesPattern(pattern, rule.pattern.split(/\s+/), false);
    return new HostPatterns([pattern]).matches(rule.pattern);
  });
}

function allow(profile: Profile, rule: Rule): Profile {
  if (rule.kind === "tool") return { ...profile, tools: new Set([...profile.tools, rule.name]) };
  const tool = rule.kind;
  if (!profile.tools.has(tool)) {
    throw new UsageError(
      `--allow ${tool}:${"pattern" in rule ? rule.pattern : ""}: ` +
        `profile "${profile.name}" does not offer ${tool}`,
      {
        hint: `add --allow ${tool} as well, if the profile's flag_allow lists it`,
      },
    );
  }
  if (rule.kind === "bash") {
    return {
      ...profile,
      bash: { ...profile.bash, allow: [...profile.bash?.allow ?? [], rule.pattern] },
    };
  }
  return {
    ...profile,
    fetchHosts: [...profile.fetchHosts ?? [], (rule as { pattern: string }).pattern],
  };
}

function isBuiltin(profile: Profile): boolean {
  return (BUILTIN_PROFILE_NAMES as readonly string[]).includes(profile.name);
}
