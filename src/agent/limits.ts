/**
 * What ends a run besides the agent finishing, as the loop applies it:
 *  - the budget (turns, tokens, cost, time): flags over the agent profile over config
 *    `limits`, field by field. A limit left out everywhere is no limit. Bad values are
 *    errors of their source: a flag → UsageError, config → ConfigError naming the key
 *    (both exit 2). Reaching one is a BudgetError (exit 4).
 *  - `--on-deny`: whether a refused tool call ends the run (exit 3).
 */
import { BudgetError, ConfigError, UsageError } from "../util/errors.ts";
import type { DurationInput, LimitsInput } from "../permission/config_shape.ts";
import type { Usage } from "../domain/usage.ts";
import { parseDurationSeconds } from "../util/duration.ts";

/** What a run has spent so far, as the budget checks it. */
export interface RunTotals {
  turns: number;
  usage: Usage;
  cost_usd: number;
}

export interface Limits {
  /** Model requests. */
  max_turns?: number;
  /** Input + output tokens over the run. */
  max_tokens?: number;
  /** USD. */
  max_cost?: number;
  /** Wall-clock milliseconds. */
  timeout_ms?: number;
}

/**
 * Stops the run before a request that a limit no longer allows. Time is not
 * checked here: `timeLimit` turns it into the signal the loop already obeys.
 */
export function checkBudget(limits: Limits, totals: RunTotals): void {
  if (limits.max_turns !== undefined && totals.turns >= limits.max_turns) {
    throw new BudgetError("turns", `max turns reached (${limits.max_turns})`);
  }
  const tokens = totals.usage.input_tokens + totals.usage.output_tokens;
  if (limits.max_tokens !== undefined && tokens >= limits.max_tokens) {
    throw new BudgetError("tokens", `max tokens reached (${tokens} of ${limits.max_tokens})`);
  }
  if (limits.max_cost !== undefined && totals.cost_usd >= limits.max_cost) {
    throw new BudgetError(
      "cost",
      `max cost reached (${usd(totals.cost_usd)} of $${limits.max_cost})`,
    );
  }
}

/**
 * After an answer: a run whose last turn went past a token or cost limit did not
 * finish within its budget, though nothing was left to stop (exit 4, not 0).
 */
export function checkOvershoot(limits: Limits, totals: RunTotals): void {
  const tokens = totals.usage.input_tokens + totals.usage.output_tokens;
  if (limits.max_tokens !== undefined && tokens > limits.max_tokens) {
    throw new BudgetError("tokens", `max tokens exceeded (${tokens} of ${limits.max_tokens})`);
  }
  if (limits.max_cost !== undefined && totals.cost_usd > limits.max_cost) {
    throw new BudgetError(
      "cost",
      `max cost exceeded (${usd(totals.cost_usd)} of $${limits.max_cost})`,
    );
  }
}

/** Dollars to 4 places, or to 2 significant digits below a cent of a cent. */
function usd(n: number): string {
  return n === 0 || n >= 0.0001 ? `$${n.toFixed(4)}` : `$${Number(n.toPrecision(2))}`;
}

/**
 * The run's time limit (`--timeout`), and the one place it is enforced: `signal`
 * joined with a timer that aborts with a BudgetError when the time is up, so a
 * request or tool call in flight stops at once and the loop ends at its next check.
 * A limit of 0 (a sub-agent started after the run's time ran out) is up already.
 * Dispose it to stop the timer.
 */
export function timeLimit(
  signal: AbortSignal,
  timeoutMs: number | undefined,
): Disposable & { signal: AbortSignal } {
  if (timeoutMs === undefined) return { signal, [Symbol.dispose]() {} };
  const up = new AbortController();
  const reached = () => new BudgetError("time", `timeout reached (${timeoutMs / 1000} s)`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (timeoutMs <= 0) up.abort(reached());
  else timer = setTimeout(() => up.abort(reached()), timeoutMs);
  return {
    signal: AbortSignal.any([signal, up.signal]),
    [Symbol.dispose]: () => clearTimeout(timer),
  };
}

type Source = { kind: "flag" } | { kind: "config"; prefix: string };

/**
 * `caps` (what an untrusted project set) bound the result whatever its source: the
 * lower value wins, so a project can lower a limit the operator set and never raise one.
 */
export function resolveLimits(
  flags: LimitsInput | undefined,
  profile: { name: string; limits: LimitsInput } | undefined,
  configLimits: LimitsInput | undefined,
  caps?: LimitsInput,
): Limits {
  const layers: Array<[LimitsInput | undefined, Source]> = [
    [flags, { kind: "flag" }],
    [profile?.limits, { kind: "config", prefix: `agents.${profile?.name}.` }],
    [configLimits, { kind: "config", prefix: "limits." }],
  ];
  const pick = <T>(key: keyof LimitsInput, parse: (v: never, where: string) => T) => {
    for (const [layer, source] of layers) {
      const value = layer?.[key];
      if (value === undefined || value === null) continue;
      const where = source.kind === "flag" ? `--${key.replace("_", "-")}` : source.prefix + key;
      try {
        return parse(value as never, where);
      } catch (err) {
        const message = (err as Error).message;
        throw source.kind === "flag" ? new UsageError(message) : new ConfigError(message);
      }
    }
    return undefined;
  };
  const limits: Limits = {
    max_turns: pick("max_turns", (v: string | number, w) => parseCount(v, w)),
    max_tokens: pick("max_tokens", (v: string | number, w) => parseCount(v, w)),
    max_cost: pick("max_cost", (v: string | number, w) => parseCost(v, w)),
    timeout_ms: pick("timeout", (v: DurationInput, w) => parseDuration(v, w)),
  };
  if (caps) {
    const capOf = (key: keyof LimitsInput, parse: (v: never, where: string) => number) => {
      const raw = caps[key];
      if (raw === undefined || raw === null) return undefined;
      try {
        return parse(raw as never, `the project's limits.${key}`);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    };
    const lower = (a?: number, b?: number) =>
      a === undefined ? b : b === undefined ? a : Math.min(a, b);
    limits.max_turns = lower(limits.max_turns, capOf("max_turns", parseCount));
    limits.max_tokens = lower(limits.max_tokens, capOf("max_tokens", parseCount));
    limits.max_cost = lower(limits.max_cost, capOf("max_cost", parseCost));
    limits.timeout_ms = lower(limits.timeout_ms, capOf("timeout", parseDuration));
  }
  for (const key of Object.keys(limits) as Array<keyof Limits>) {
    if (limits[key] === undefined) delete limits[key];
  }
  return limits;
}

/** A whole number above zero. */
function parseCount(value: string | number, where: string): number {
  const n = typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new Error(`${where}: expected a whole number above 0, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** USD above zero; "0.50" and "$0.50" both read as half a dollar, and so does 5e-1. */
function parseCost(value: string | number, where: string): number {
  const text = typeof value === "number" ? "" : value.trim().replace(/^\$/, "");
  const n = typeof value === "number"
    ? value
    : /^(\d+(\.\d*)?|\.\d+)(e-?\d+)?$/i.test(text)
    ? Number(text)
    : NaN;
  if (!Number.isFinite(n) || n <= 0) {
    throw new Error(`${where}: expected an amount in USD above 0, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * Milliseconds from "90s", "10m", "1h", "1h30m", "500ms", or seconds as a number
 * or a bare numeric string ("90"); the forms config accepts, in any letter case.
 */
export function parseDuration(value: DurationInput, where: string): number {
  const seconds = parseDurationSeconds(typeof value === "string" ? value.toLowerCase() : value);
  if (seconds === undefined || seconds <= 0) {
    throw new Error(
      `${where}: expected a duration such as 90s, 10m, 1h or a number of seconds, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return Math.round(seconds * 1000);
}

/** `--on-deny`: continue (default), fail (go on, exit 3 at the end), stop (exit 3 at once). */
export const ON_DENY_MODES = ["continue", "fail", "stop"] as const;
export type OnDeny = typeof ON_DENY_MODES[number];

/** The `--on-deny` flag's value; not given means `continue`. */
export function parseOnDeny(value: string | undefined): OnDeny {
  if (value === undefined) return "continue";
  if ((ON_DENY_MODES as readonly string[]).includes(value)) return value as OnDeny;
  throw new UsageError(`unknown --on-deny mode '${value}'`, {
    hint: "use continue, fail or stop",
  });
}

/** What the loop does right after a denial. */
export function afterDenial(policy: OnDeny): "continue" | "stop" {
  return policy === "stop" ? "stop" : "continue";
}

/** Whether a run that otherwise finished ends as a gate failure (exit 3). */
export function failsAtEnd(policy: OnDeny, denials: number): boolean {
  return denials > 0 && policy !== "continue";
}
