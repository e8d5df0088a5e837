/**
 * Stops a model that repeats itself: the same tool call (name, input and output)
 * more than `maxRepeats` times within the last `window` calls (crush's rule).
 */
import { AgentError } from "../util/errors.ts";

export class LoopGuard {
  #recent: string[] = [];
  constructor(readonly window = 10, readonly maxRepeats = 5) {}

  /** Records a finished call; throws AgentError("loop detected") when the rule trips. */
  record(name: string, input: string, output: string): void {
    const key = JSON.stringify([name, canonical(input), output]);
    this.#recent.push(key);
    if (this.#recent.length > this.window) this.#recent.shift();
    const repeats = this.#recent.filter((k) => k === key).length;
    if (repeats > this.maxRepeats) {
      throw new AgentError(
        `loop detected: ${name} was called ${repeats} times with the same input and output in the last ${this.#recent.length} calls`,
      );
    }
  }
}

/** Same arguments in another key order or spacing count as the same call. */
function canonical(input: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(input)));
  } catch {
    return input.trim();
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
