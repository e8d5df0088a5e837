/**
 * The run's output protocol (DESIGN §3): an `init` event, the loop's events, and a
 * final `result` event. The first and the last are built here and nowhere else,
 * also for a run that failed before it started.
 */
import type { AgentEvent } from "../agent/events.ts";
import type { RunOutcome } from "../agent/types.ts";
import type { Denial } from "../domain/tool_records.ts";
import { emptyUsage, type Usage } from "../domain/usage.ts";
import type { McpServerStatus } from "../mcp/manager.ts";
import type { FallbackUse } from "../provider/fallback.ts";

export type { McpServerStatus };

/** How a run ended, as `result.subtype` says it. */
export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_budget"
  | "error_gate"
  | "error_agent"
  | "error_tool"
  /** The session asked for (`-C`, `-s`) is in use by another live run (exit 2). */
  | "error_session_busy"
  | "cancelled";

/** A run's ending: its exit code and result subtype (the CLI's exit-code table decides both). */
export interface Ending {
  code: number;
  subtype: ResultSubtype;
}

/** First event of a run: what it is about to use. */
export interface InitEvent {
  type: "init";
  session_id: string;
  /** `provider/model` of the large model. */
  model: string;
  agent: string;
  cwd: string;
  /** Names of the tools offered to the model. */
  tools: string[];
  mcp_servers: McpServerStatus[];
  /**
   * The OS jail of the model's processes: backend "bwrap" | "sandbox-exec", "off"
   * (the operator's --sandbox off) or "none" (nothing to jail); the network mode.
   */
  sandbox?: { backend: string; network: string; hosts?: readonly string[] };
  /** Whether the project's own config files were trusted (`--trust-project` and the like). */
  project_trusted: boolean;
  /** What an untrusted project's config asked for and did not get (file relative to the project). */
  ignored_project_keys: Array<{ file: string; key: string; reason: string }>;
}

/** Last event of a run, in every output mode; `exit_code` is the process's. */
export interface ResultEvent {
  type: "result";
  subtype: ResultSubtype;
  is_error: boolean;
  exit_code: number;
  /** The last assistant text. */
  result: string;
  session_id: string;
  num_turns: number;
  usage: Usage;
  cost_usd: number;
  duration_ms: number;
  denials: Denial[];
  /** The final answer as JSON, with `--output-schema`. */
  structured_output?: unknown;
  /** Why the run ended, when it was not a success. */
  error?: string;
  /** Set when the run switched to its `--fallback-model`. */
  fallback?: FallbackUse;
}

/**
 * Every event a run's output carries: `init` first, the loop's events (AgentEvent),
 * and `result` last, also for a run that failed before it started. With
 * `-o stream-json` each is one JSON line with `"v": 1` added; `-o json` prints only
 * the `result`.
 *
 * @example Reading a run's output
 * ```ts
 * import type { RunEvent } from "./run_events.ts";
 *
 * function summary(events: RunEvent[]): string {
 *   const result = events.find((e) => e.type === "result");
 *   if (!result || result.type !== "result") return "no result";
 *   return `${result.subtype} (exit ${result.exit_code}) after ${result.num_turns} turn(s)`;
 * }
 * const line = summary([{
 *   type: "result",
 *   subtype: "success",
 *   is_error: false,
 *   exit_code: 0,
 *   result: "done",
 *   session_id: "s",
 *   num_turns: 1,
 *   usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 },
 *   cost_usd: 0,
 *   duration_ms: 5,
 *   denials: [],
 * }]);
 * if (line !== "success (exit 0) after 1 turn(s)") throw new Error(line);
 * ```
 */
export type RunEvent = InitEvent | AgentEvent | ResultEvent;

export function initEvent(facts: Omit<InitEvent, "type">): InitEvent {
  return { type: "init", ...facts };
}

/** The result of a run that started; `startedMs` is when the command began. */
export function resultEvent(
  outcome: RunOutcome & { fallback?: FallbackUse },
  ending: Ending,
  run: { session_id: string; startedMs: number },
): ResultEvent {
  return {
    type: "result",
    subtype: ending.subtype,
    is_error: ending.code !== 0,
    exit_code: ending.code,
    result: outcome.text,
    session_id: run.session_id,
    num_turns: outcome.turns,
    usage: outcome.usage,
    cost_usd: outcome.cost_usd,
    duration_ms: Date.now() - run.startedMs,
    denials: outcome.denials,
    ...(outcome.structured_output !== undefined
      ? { structured_output: outcome.structured_output }
      : {}),
    ...(outcome.error ? { error: outcome.error.message } : {}),
    ...(outcome.fallback ? { fallback: outcome.fallback } : {}),
  };
}

/** What a run that ended early had done so far (its session, turns and spend). */
export interface SoFar {
  session_id: string;
  num_turns: number;
  usage: Usage;
  cost_usd: number;
}

/**
 * The result of a run that failed before it started, or was ended before it could
 * end itself: json consumers still get one, with what is known of the run so far.
 */
export function failedResult(
  err: unknown,
  ending: Ending,
  startedMs: number,
  sofar: SoFar = { session_id: "", num_turns: 0, usage: emptyUsage(), cost_usd: 0 },
): ResultEvent {
  return {
    type: "result",
    subtype: ending.subtype,
    is_error: true,
    exit_code: ending.code,
    result: "",
    ...sofar,
    duration_ms: Date.now() - startedMs,
    denials: [],
    error: err instanceof Error ? err.message : String(err),
  };
}
