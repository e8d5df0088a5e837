/**
 * A provider builds its SDK client once and keeps it: every request still goes
 * through the fetch of its own attempt, also when two run at once (a title and a
 * turn on the same model), and the header that routes it never reaches the server.
 */
import assert from "node:assert/strict";
import { createProvider } from "../../src/provider/provider.ts";
import { ProviderError } from "../../src/provider/errors.ts";
import { httpError, ok, sse, testModel, userRequest } from "./helpers.ts";

const answer = (text: string) =>
  sse(
    { choices: [{ index: 0, delta: { content: text }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    "[DONE]",
  );

Deno.test("concurrent requests of one provider each get their own answer and error", async () => {
  const seen: Headers[] = [];
  let release!: () => void;
  const bothArrived = new Promise<void>((r) => release = r);
  const base = async (_: string | URL | Request, init?: RequestInit): Promise<Response> => {
    seen.push(new Headers(init?.headers));
    if (seen.length === 2) release();
    await bothArrived; // both requests are in flight before either is answered
    const asked = JSON.parse(String(init?.body)).messages.at(-1).content as string;
    const r = asked === "fail"
      ? httpError(401, { error: { message: "bad key for fail", type: "auth" } })
      : ok(answer(`answer to ${asked}`));
    return new Response(r.body, { status: r.status, headers: r.headers });
  };
  const provider = createProvider(testModel(), { fetch: base, maxAttempts: 1 });
  const [good, bad] = await Promise.allSettled([
    provider.complete(userRequest("hello"), () => {}),
    provider.complete(userRequest("fail"), () => {}),
  ]);
  assert.equal(good.status, "fulfilled");
  assert.deepEqual(good.value.parts, [{ type: "text", text: "answer to hello" }]);
  assert.equal(bad.status, "rejected");
  assert.ok(bad.reason instanceof ProviderError);
  assert.equal(bad.reason.kind, "auth");
  assert.match(bad.reason.message, /bad key for fail/);
  // A later turn reuses the client and still reaches the server.
  const again = await provider.complete(userRequest("again"), () => {});
  assert.deepEqual(again.parts, [{ type: "text", text: "answer to again" }]);
  assert.equal(seen.length, 3);
  for (const h of seen) {
    assert.equal(h.get("x-mopac-attempt"), null, "the routing header was sent");
    assert.equal(h.get("authorization"), "Bearer sk-test-secret-1234");
  }
});
