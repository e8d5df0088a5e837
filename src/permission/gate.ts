/**
 * The one permission gate every tool call passes, built-in and MCP alike. Order:
 *  1. built-in ban list: any shell script in the call, checked with no profile rules
 *     (network clients, privilege escalation, … hold whatever the profile says);
 *  2. profile allowlist: a tool the profile does not offer is refused ("not_allowed");
 *     an MCP tool must be allowed by `allowed_mcp` (names or globs, or true);
 *  3. rules: the shell's (assignments to variables that change what runs, redirection
 *     targets, `bash.deny`/`bash.allow` on the parsed commands), then paths (already
 *     symlink-resolved by the tool, redirections included: `paths.deny` first, then
 *     writes, then reads), then hosts against `fetch.hosts`;
 *  4. `hooks.PreToolUse` commands (see hooks.ts);
 *  5. allow.
 * A check that throws is a denial: the gate fails closed. Headless runs never prompt.
 */
import type { Access, Decision, Gate, GateRequest } from "./types.ts";
import type { Profile } from "./profiles.ts";
import { ProfileRules } from "./rules.ts";
import { type HookConfig, PreToolUseHooks, type RunHook } from "./hooks.ts";
import { checkBans, checkShell } from "./shell_rules.ts";

export interface GateOptions {
  profile: Profile;
  /** Workspace root; resolved to its real path here so it compares with resolved paths. */
  workspace: string;
  hooks?: readonly HookConfig[];
  /** Replaces the bash runner of hooks (tests). */
  runHook?: RunHook;
  /** Warnings (a broken hook); never stdout. */
  log?: (s: string) => void;
  /** Environment for hook commands; when set, the parent's environment is not inherited. */
  hookEnv?: Record<string, string>;
  /** Session id for hook payloads when the request carries none. */
  sessionId?: string | (() => string | undefined);
}

export function createGate(opts: GateOptions): Gate {
  const workspace = realWorkspace(opts.workspace);
  // A sub-agent's profile and every profile it lies within: a call must pass them all.
  const chain: Profile[] = [];
  for (let p: Profile | undefined = opts.profile; p; p = p.within) chain.push(p);
  const all = chain.map((p) => new ProfileRules(p, workspace));
  const rules = {
    offers: (tool: string, mcp?: { server: string; tool: string }) =>
      all.every((r) => r.offers(tool, mcp)),
    checkPaths: (access: Access) => firstDenial(all.map((r) => () => r.checkPaths(access))),
    checkHosts: (access: Access) => firstDenial(all.map((r) => () => r.checkHosts(access))),
    readable: (path: string) => all.every((r) => r.readable(path)),
    /** The narrowing (`--tools`, …) that took a tool away from the profile refusing it. */
    narrowedBy: (tool: string, mcp?: { server: string; tool: string }) => {
      const refusing = all.find((r) => !r.offers(tool, mcp));
      const by = refusing?.narrowedBy(tool, mcp);
      return by ? { by, profile: refusing!.profile.name } : undefined;
    },
  };
  const hooks = new PreToolUseHooks(opts.hooks ?? [], {
    cwd: workspace,
    runHook: opts.runHook,
    log: opts.log,
    env: opts.hookEnv,
  });
  const sessionId = () => typeof opts.sessionId === "function" ? opts.sessionId() : opts.sessionId;

  async function decide(req: GateRequest): Promise<Decision> {
    const shell = req.access?.shell;
    // 1. The ban list comes before everything, so no profile can lift it.
    if (shell) {
      const banned = checkBans(shell);
      if (!banned.allow) return banned;
    }
    // 2. Allowlist.
    if (!rules.offers(req.tool, req.mcp)) {
      const narrowed = rules.narrowedBy(req.tool, req.mcp);
      if (narrowed) {
        return {
          allow: false,
          rule: req.mcp ? "allowed_mcp" : "not_allowed",
          reason: `tool "${req.tool}" is not offered in this run: ${narrowed.by} leaves it out ` +
            `(profile "${narrowed.profile}" has it)`,
        };
      }
      return req.mcp
        ? {
          allow: false,
          rule: "allowed_mcp",
          reason: `MCP tool "${req.mcp.tool}" of server "${req.mcp.server}" is not allowed ` +
            `by profile "${opts.profile.name}"`,
        }
        : {
          allow: false,
          rule: "not_allowed",
          reason: `tool "${req.tool}" is not allowed by profile "${opts.profile.name}"`,
        };
    }
    // 3. Rules: the shell's (every profile has some: assignments, redirections), then paths.
    if (shell) {
      const byRules = firstDenial(chain.map((p) => () => checkShell(shell, p.bash ?? {})));
      if (!byRules.allow) return byRules;
    }
    const access = req.access ?? {};
    const paths = rules.checkPaths(access);
    if (!paths.allow) return paths;
    const hosts = rules.checkHosts(access);
    if (!hosts.allow) return hosts;
    // 4. Hooks (once: a rewritten input is checked against the rules above only).
    if (req.rewritten) return { allow: true };
    return await hooks.check({
      tool: req.tool,
      input: req.input,
      session_id: req.session_id ?? sessionId(),
    });
  }

  return {
    allows: (tool, mcp) => rules.offers(tool, mcp),
    paths: {
      readable: (path) => rules.readable(path),
      denyGlobs: chain.flatMap((p) => p.paths.deny),
    },
    async check(req: GateRequest): Promise<Decision> {
      try {
        return await decide(req);
      } catch (err) {
        return {
          allow: false,
          rule: "gate",
          reason: `permission check failed: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    },
  };
}

function firstDenial(checks: Array<() => Decision>): Decision {
  for (const check of checks) {
    const d = check();
    if (!d.allow) return d;
  }
  return { allow: true };
}

function realWorkspace(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    // Not readable or not there yet: compare against the path as given.
    return path;
  }
}
