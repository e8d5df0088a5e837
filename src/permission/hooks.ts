/**
 * crush-style `hooks.PreToolUse`: each hook whose matcher (a regular expression,
 * unanchored) matches the tool name runs with `bash -c`, the call's JSON on stdin.
 *  - exit 0 allows, unless stdout is JSON that says `"decision": "deny"` (crush) or
 *    `hookSpecificOutput.permissionDecision: "deny"` (Claude Code);
 *  - exit 2 denies, stderr is the reason (crush's exit 49, "halt", also denies);
 *  - any other exit code is a broken hook: logged as a warning, the call goes on
 *    (crush does the same);
 *  - time-out (default 30 s) denies. crush lets the call go on here; an unattended run
 *    must not let a policy check that never answered count as consent.
 *  - a hook that cannot start at all (no bash, no --allow-run) denies, for the same reason.
 */
import { ConfigError } from "../util/errors.ts";
import type { Decision } from "./types.ts";
import type { HookInput } from "./config_shape.ts";
import { runBounded } from "../util/subprocess.ts";

export type HookConfig = HookInput;

export type HookOutcome =
  | { kind: "exit"; code: number; stdout: string; stderr: string }
  | { kind: "timeout" }
  | { kind: "error"; message: string };

export interface HookRunOptions {
  cwd: string;
  timeoutMs: number;
  /** Variables set for the hook (MOPAC_TOOL_NAME, …, and the configured ones). */
  env: Record<string, string>;
  /** Pass on only `env`, not mopac's own environment (which may hold provider keys). */
  clearEnv: boolean;
}

/** Runs one hook command; injectable so tests can script outcomes. */
export type RunHook = (
  hook: HookConfig,
  payload: string,
  options: HookRunOptions,
) => Promise<HookOutcome>;

const DEFAULT_HOOK_TIMEOUT_S = 30;
const RULE = "hooks.PreToolUse";

export interface HookCall {
  tool: string;
  input: unknown;
  session_id?: string;
}

export class PreToolUseHooks {
  readonly #hooks: Array<{ hook: HookConfig; matcher?: RegExp }>;

  constructor(
    hooks: readonly HookConfig[],
    private readonly options: {
      cwd: string;
      runHook?: RunHook;
      log?: (s: string) => void;
      env?: Record<string, string>;
    },
  ) {
    this.#hooks = hooks.map((hook, i) => {
      if (typeof hook?.command !== "string" || hook.command.trim() === "") {
        throw new ConfigError(`hooks.PreToolUse[${i}].command: a command is required`);
      }
      if (!hook.matcher) return { hook };
      try {
        return { hook, matcher: new RegExp(hook.matcher) };
      } catch (err) {
        throw new ConfigError(
          `hooks.PreToolUse[${i}].matcher: invalid regular expression "${hook.matcher}": ${
            (err as Error).message
          }`,
        );
      }
    });
  }

  /** Runs the matching hooks at once; the first denial in config order wins. */
  async check(call: HookCall): Promise<Decision> {
    const seen = new Set<string>();
    const matching = this.#hooks
      .filter(({ matcher }) => !matcher || matcher.test(call.tool))
      .map(({ hook }) => hook)
      .filter((hook) => !seen.has(hook.command) && seen.add(hook.command));
    if (matching.length === 0) return { allow: true };

    const payload = JSON.stringify({
      event: "PreToolUse",
      hook_event_name: "PreToolUse",
      session_id: call.session_id ?? "",
      cwd: this.options.cwd,
      tool_name: call.tool,
      tool_input: call.input ?? {},
    });
    const env = {
      ...this.options.env,
      MOPAC_EVENT: "PreToolUse",
      MOPAC_TOOL_NAME: call.tool,
      MOPAC_SESSION_ID: call.session_id ?? "",
      MOPAC_CWD: this.options.cwd,
    };
    const run = this.options.runHook ?? runHookCommand;
    const decisions = await Promise.all(matching.map(async (hook) => {
      const timeoutS = hook.timeout && hook.timeout > 0 ? hook.timeout : DEFAULT_HOOK_TIMEOUT_S;
      const outcome = await run(hook, payload, {
        cwd: this.options.cwd,
        timeoutMs: timeoutS * 1000,
        env,
        clearEnv: this.options.env !== undefined,
      }).catch((err): HookOutcome => ({ kind: "error", message: String(err?.message ?? err) }));
      return interpretOutcome(outcome, hook, timeoutS, this.options.log);
    }));
    return decisions.find((d) => !d.allow) ?? { allow: true };
  }
}

/** What one hook's outcome means for the call. */
function interpretOutcome(
  outcome: HookOutcome,
  hook: HookConfig,
  timeoutS: number,
  log?: (s: string) => void,
): Decision {
  switch (outcome.kind) {
    case "timeout":
      return { allow: false, rule: RULE, reason: `hook timed out after ${timeoutS}s` };
    case "error":
      return { allow: false, rule: RULE, reason: `hook could not run: ${outcome.message}` };
    case "exit":
      if (outcome.code === 0) return stdoutDecision(outcome.stdout);
      if (outcome.code === 2 || outcome.code === 49) {
        return { allow: false, rule: RULE, reason: outcome.stderr.trim() || "blocked by hook" };
      }
      log?.(
        `warning: hook "${hook.command}" exited with ${outcome.code}; ignoring it` +
          (outcome.stderr.trim() ? `: ${outcome.stderr.trim()}` : ""),
      );
      return { allow: true };
  }
}

function stdoutDecision(stdout: string): Decision {
  const text = stdout.trim();
  if (!text.startsWith("{")) return { allow: true };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { allow: true };
  }
  const specific = parsed.hookSpecificOutput as Record<string, unknown> | undefined;
  const decision = String(specific?.permissionDecision ?? parsed.decision ?? "").toLowerCase();
  if (decision !== "deny" && decision !== "block") return { allow: true };
  const reason = specific?.permissionDecisionReason ?? parsed.reason;
  return { allow: false, rule: RULE, reason: String(reason ?? "") || "blocked by hook" };
}

/**
 * Runs one hook command with bash: payload on stdin, stdout and stderr captured
 * (bounded), killed with its whole process group when its time is up, so a hook
 * that starts `sleep` or a server cannot keep the run waiting.
 */
/** Most bytes kept of each output stream: a reason, not a log. */
const MAX_OUTPUT = 64 * 1024;
/** How long to wait for the pipes after the hook exited (a background child may hold them). */
const PIPE_GRACE_MS = 500;

export async function runHookCommand(
  hook: HookConfig,
  payload: string,
  options: HookRunOptions,
): Promise<HookOutcome> {
  try {
    const result = await runBounded("bash", {
      args: ["-c", hook.command],
      cwd: options.cwd,
      stdin: payload,
      env: options.env,
      clearEnv: options.clearEnv,
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_OUTPUT,
      pipeGraceMs: PIPE_GRACE_MS,
    });
    if (result.kind === "timeout") return result;
    return { kind: "exit", code: result.code, stdout: result.stdout, stderr: result.stderr };
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}
