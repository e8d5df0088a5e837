import assert from "node:assert/strict";
import {
  afterDenial,
  failsAtEnd,
  parseDuration,
  parseOnDeny,
  resolveLimits,
} from "../../src/agent/limits.ts";
import { ConfigError, UsageError } from "../../src/util/errors.ts";

Deno.test("durations: units, compounds, bare seconds", () => {
  assert.equal(parseDuration("90s", "x"), 90_000);
  assert.equal(parseDuration("10m", "x"), 600_000);
  assert.equal(parseDuration("1h", "x"), 3_600_000);
  assert.equal(parseDuration("1h30m", "x"), 5_400_000);
  assert.equal(parseDuration("500ms", "x"), 500);
  assert.equal(parseDuration("1.5m", "x"), 90_000);
  assert.equal(parseDuration(" 45 ", "x"), 45_000);
  assert.equal(parseDuration(2, "x"), 2_000);
  for (const bad of ["", "ten", "10x", "-5s", "0", "0s", "s", "1h 30m"]) {
    assert.throws(() => parseDuration(bad, "--timeout"), /--timeout: expected a duration/, bad);
  }
  assert.throws(() => parseDuration(-1, "x"));
  assert.throws(() => parseDuration(Number.NaN, "x"));
});

Deno.test("flags over profile over config, field by field", () => {
  const limits = resolveLimits(
    { max_turns: "5" },
    { name: "fixer", limits: { max_turns: 40, max_cost: 1 } },
    { max_turns: 100, max_cost: 3, max_tokens: 200_000, timeout: "10m" },
  );
  assert.deepEqual(limits, { max_turns: 5, max_tokens: 200_000, max_cost: 1, timeout_ms: 600_000 });
});

Deno.test("nothing set anywhere → no limits", () => {
  assert.deepEqual(resolveLimits({}, { name: "coder", limits: {} }, undefined), {});
  assert.deepEqual(resolveLimits(undefined, undefined, undefined), {});
});

Deno.test("cost accepts dollars with or without $", () => {
  assert.equal(resolveLimits({ max_cost: "0.50" }, undefined, undefined).max_cost, 0.5);
  assert.equal(resolveLimits({ max_cost: "$2" }, undefined, undefined).max_cost, 2);
  assert.equal(resolveLimits({ max_cost: ".25" }, undefined, undefined).max_cost, 0.25);
});

Deno.test("bad flag values → UsageError naming the flag", () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ max_turns: "0" }, /--max-turns/],
    [{ max_turns: "2.5" }, /--max-turns/],
    [{ max_turns: "abc" }, /--max-turns/],
    [{ max_tokens: "-3" }, /--max-tokens/],
    [{ max_cost: "free" }, /--max-cost/],
    [{ max_cost: "0" }, /--max-cost/],
    [{ timeout: "soon" }, /--timeout/],
  ];
  for (const [flags, pattern] of cases) {
    assert.throws(
      () => resolveLimits(flags, undefined, undefined),
      (err: unknown) => err instanceof UsageError && pattern.test(err.message),
      JSON.stringify(flags),
    );
  }
});

Deno.test("bad config values → ConfigError naming the key", () => {
  assert.throws(
    () => resolveLimits({}, { name: "fixer", limits: { timeout: "forever" } }, undefined),
    (err: unknown) => err instanceof ConfigError && /agents\.fixer\.timeout/.test(err.message),
  );
  assert.throws(
    () => resolveLimits({}, undefined, { max_turns: -1 }),
    (err: unknown) => err instanceof ConfigError && /limits\.max_turns/.test(err.message),
  );
  // A valid flag hides an invalid lower layer: that value is never used.
  assert.equal(resolveLimits({ max_turns: 3 }, undefined, { max_turns: -1 }).max_turns, 3);
});

Deno.test("--on-deny policy", () => {
  assert.equal(parseOnDeny(undefined), "continue");
  assert.equal(parseOnDeny("stop"), "stop");
  assert.throws(() => parseOnDeny("halt"), UsageError);
  assert.equal(afterDenial("continue"), "continue");
  assert.equal(afterDenial("fail"), "continue");
  assert.equal(afterDenial("stop"), "stop");
  assert.equal(failsAtEnd("continue", 3), false);
  assert.equal(failsAtEnd("fail", 0), false);
  assert.equal(failsAtEnd("fail", 1), true);
  assert.equal(failsAtEnd("stop", 1), true);
});
