/** Stops the run before a request that a limit no longer allows. */
import { BudgetError } from "../util/errors.ts";
import type { Limits, RunTotals } from "./types.ts";

export function checkBudget(limits: Limits, totals: RunTotals, elapsedMs: number): void {
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
      `max cost reached ($${totals.cost_usd.toFixed(4)} of $${limits.max_cost})`,
    );
  }
  if (limits.timeout_ms !== undefined && elapsedMs >= limits.timeout_ms) {
    throw timeoutReached(limits.timeout_ms);
  }
}

/** The end of a run that used up `--timeout`: between turns (above), or mid-turn (the app's timer). */
export function timeoutReached(timeoutMs: number): BudgetError {
  return new BudgetError("time", `timeout reached (${timeoutMs / 1000} s)`);
}
