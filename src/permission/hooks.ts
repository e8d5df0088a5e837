/**
 * crush-style `hooks.PreToolUse`: each hook whose matcher (a regular expression,
 * unanchored) matches the tool name runs with `bash -c`, the call's JSON on stdin
 * and crush's variables in its environment (`CRUSH_TOOL_NAME`,
 * `CRUSH_TOOL_INPUT_COMMAND`, …, see `hookEnv`), so hooks written for crush work
 * unchanged. What a hook says (hook_output.ts):
 *  - exit 0 with no JSON: no opinion; JSON may deny (`"decision": "deny"`, or Claude
 *    Code's `permissionDecision`), halt (`"halt": true`), rewrite the input
 *    (`updated_input`, a shallow patch) and add `context` for the model;
 *  - exit 2 denies, stderr is the reason; exit 49 halts the run (exit code 3);
 *  - any other exit code is a broken hook: logged as a warning, the call goes on
 *    (crush does the same);
 *  - time-out (default 30 s) denies. crush lets the call go on here; an unattended run
 *    must not let a policy check that never answered count as consent.
 *  - a hook that cannot start at all (no bash, no --allow-run) denies, for the same reason.
 * Hooks run in parallel; their verdicts compose in config order: a halt wins, then a
 * denial; rewrites are applied one after the other (later keys win) and only when
 * nothing denied.
 */
import { ConfigError } from "../util/errors.ts";
import type { Decision } from "./types.ts";
import type { HookInput } from "./config_shape.ts";
import { runBounded } from "../util/subprocess.ts";
import { type HookOutcome, type HookVerdict, verdictOf } from "./hook_output.ts";

export type HookConfig = HookInput;

export type { HookOutcome };

export interface HookRunOptions {
  cwd: string;
  timeoutMs: number;
  /** Variables set for the hook (CRUSH_TOOL_NAME, MOPAC_TOOL_NAME, …, and the configured ones). */
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

  /** Runs the matching hooks at once and composes their verdicts in config order. */
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
    const env = { ...this.options.env, ...hookEnv(call, this.options.cwd) };
    const run = this.options.runHook ?? runHookCommand;
    const verdicts = await Promise.all(matching.map(async (hook) => {
      const timeoutS = hook.timeout && hook.timeout > 0 ? hook.timeout : DEFAULT_HOOK_TIMEOUT_S;
      const outcome = await run(hook, payload, {
        cwd: this.options.cwd,
        timeoutMs: timeoutS * 1000,
        env,
        clearEnv: this.options.env !== undefined,
      }).catch((err): HookOutcome => ({ kind: "error", message: String(err?.message ?? err) }));
      return verdictOf(outcome, hook, timeoutS, this.options.log);
    }));
    return compose(verdicts);
  }
}

/**
 * The variables a hook sees: crush's (`CRUSH_*`, `CRUSH`, `AGENT`, `AI_AGENT`, as
 * crush's hook documentation lists them) and the same under `MOPAC_*`.
 */
export function hookEnv(call: HookCall, cwd: string): Record<string, string> {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const fields: Record<string, string | undefined> = {
    EVENT: "PreToolUse",
    TOOL_NAME: call.tool,
    SESSION_ID: call.session_id ?? "",
    CWD: cwd,
    PROJECT_DIR: cwd,
    TOOL_INPUT_COMMAND: text(input.command),
    TOOL_INPUT_FILE_PATH: text(input.file_path) ?? text(input.path),
  };
  const env: Record<string, string> = { CRUSH: "1", AGENT: "mopac", AI_AGENT: "mopac" };
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    env[`CRUSH_${name}`] = value;
    env[`MOPAC_${name}`] = value;
  }
  return env;
}

/** Config order: a halt wins, then a denial; otherwise the rewrites and notes of all. */
function compose(verdicts: HookVerdict[]): Decision {
  const reasons = (kind: HookVerdict["kind"]) =>
    verdicts.filter((v) => v.kind === kind).map((v) => v.reason || "blocked by hook").join("\n");
  if (verdicts.some((v) => v.kind === "halt")) {
    return { allow: false, rule: RULE, reason: reasons("halt"), halt: true };
  }
  if (verdicts.some((v) => v.kind === "deny")) {
    return { allow: false, rule: RULE, reason: reasons("deny") };
  }
  const patches = verdicts.flatMap((v) => (v.updated_input ? [v.updated_input] : []));
  const notes = verdicts.flatMap((v) => v.context ?? []);
  return {
    allow: true,
    ...(patches.length > 0 ? { updated_input: Object.assign({}, ...patches) } : {}),
    ...(notes.length > 0 ? { context: notes.join("\n") } : {}),
  };
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
