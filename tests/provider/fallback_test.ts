import assert from "node:assert/strict";
import { ProviderError } from "../../src/provider/errors.ts";
import { withFallback } from "../../src/provider/fallback.ts";
import type { Provider, ProviderTurn, StreamEvent } from "../../src/provider/types.ts";

const TURN: ProviderTurn = {
  parts: [{ type: "text", text: "ok" }],
  finish_reason: "stop",
  usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 },
  cost_usd: 0,
};

function scripted(
  label: string,
  outcomes: Array<ProviderError | "ok">,
): Provider & { calls: number } {
  const p = {
    label,
    calls: 0,
    complete(_req: unknown, onEvent: (e: StreamEvent) => void) {
      const next = outcomes[p.calls++];
      if (next instanceof ProviderError) {
        onEvent({ type: "retry", attempt: 2, delay_ms: 1, reason: "first try" });
        return Promise.reject(next);
      }
      onEvent({ type: "text", delta: label });
      return Promise.resolve(TURN);
    },
  };
  return p;
}

const REQ = { system: "", messages: [], tools: [] };

Deno.test("fallback: a failure for good switches once and for all, announced by a retry event", async () => {
  const main = scripted("p/main", [new ProviderError("server", "HTTP 503"), "ok"]);
  const spare = scripted("p/spare", ["ok", "ok"]);
  const provider = withFallback(main, spare);
  const seen: StreamEvent[] = [];
  await provider.complete(REQ, (e) => seen.push(e));
  assert.deepEqual(seen.map((e) => e.type), ["retry", "retry", "text"]);
  const switched = seen[1] as Extract<StreamEvent, { type: "retry" }>;
  assert.equal(switched.attempt, 3);
  assert.equal(switched.model, "p/spare");
  assert.match(switched.reason, /p\/main failed: HTTP 503; trying p\/spare instead/);
  assert.equal(provider.label, "p/spare");
  assert.deepEqual(provider.used, { model: "p/spare", from: "p/main", reason: "HTTP 503" });
  await provider.complete(REQ, () => {});
  assert.equal(main.calls, 1, "later turns go to the fallback only");
  assert.equal(spare.calls, 2);
});

Deno.test("fallback: auth and context-length failures and aborts are not failed over", async () => {
  for (const kind of ["auth", "context_length"] as const) {
    const spare = scripted("p/spare", ["ok"]);
    const provider = withFallback(scripted("p/main", [new ProviderError(kind, kind)]), spare);
    await assert.rejects(() => provider.complete(REQ, () => {}), ProviderError);
    assert.equal(spare.calls, 0, kind);
    assert.equal(provider.used, undefined);
  }
  const ac = new AbortController();
  ac.abort();
  const spare = scripted("p/spare", ["ok"]);
  const provider = withFallback(scripted("p/main", [new ProviderError("server", "x")]), spare);
  await assert.rejects(() => provider.complete({ ...REQ, signal: ac.signal }, () => {}));
  assert.equal(spare.calls, 0);
});
