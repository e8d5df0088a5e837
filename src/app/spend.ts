/**
 * What a run has spent so far, so that a sub-agent started mid-run gets only what
 * is left of the run's token, cost and time limits (its spend counts against them).
 */
import type { Limits } from "../agent/limits.ts";
import type { Usage } from "../domain/usage.ts";

export class RunSpend {
  #tokens = 0;
  #cost = 0;
  #started = Date.now();

  constructor(readonly limits: Limits) {}

  /** Call when the run starts, so time limits count from there. */
  start(): void {
    this.#started = Date.now();
  }

  add(usage: Usage, cost: number): void {
    this.#tokens += usage.input_tokens + usage.output_tokens;
    this.#cost += cost;
  }

  /** The run's limits minus what is spent; a spent limit leaves 0 (the child stops at once). */
  remaining(): Limits {
    const { max_tokens, max_cost, timeout_ms, max_turns } = this.limits;
    return {
      max_turns,
      max_tokens: max_tokens === undefined ? undefined : Math.max(0, max_tokens - this.#tokens),
      max_cost: max_cost === undefined ? undefined : Math.max(0, max_cost - this.#cost),
      timeout_ms: timeout_ms === undefined
        ? undefined
        : Math.max(0, timeout_ms - (Date.now() - this.#started)),
    };
  }
}
