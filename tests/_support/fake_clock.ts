/**
 * The one fake clock of the tests: the `Clock` the agent loop and the provider take,
 * with time that moves only when the code under test sleeps or the test advances it.
 * A sleep returns at once (or rejects when its signal is aborted, as the real one
 * does) and is recorded, so retry delays can be checked without waiting for them.
 *
 * Code that uses timers directly (debounces) runs on `node:test`'s `mock.timers` instead.
 */
import type { Clock } from "../../src/util/clock.ts";

export interface FakeClock extends Clock {
  /** Every `sleep(ms)` asked for, in order. */
  readonly sleeps: number[];
  /** Moves time on, as if `ms` had passed. */
  advance(ms: number): void;
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep(ms: number, signal?: AbortSignal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advance(ms: number) {
      now += ms;
    },
  };
}
