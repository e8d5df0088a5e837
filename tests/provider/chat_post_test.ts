/**
 * The request of one attempt (src/provider/chat_post.ts): what the openai SDK would send
 * (checked against the real SDK through a capturing fetch), bearer auth only with a key,
 * the model's headers last, and concurrent requests of one provider kept apart.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { createProvider } from "../../src/provider/provider.ts";
import { ProviderError } from "../../src/provider/errors.ts";
import { chatCompletionsUrl } from "../../src/provider/chat_post.ts";
import { VERSION } from "../../src/util/version.ts";
import { httpError, ok, sse, testModel, userRequest } from "./helpers.ts";

const answer = (text: string) =>
  sse(
    { choices: [{ index: 0, delta: { content: text }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    "[DONE]",
  );

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch that keeps what it was asked to send and answers with one streamed text. */
function capturing(): { sent: Sent[]; fetch: typeof fetch } {
  const sent: Sent[] = [];
  const fetchImpl = (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input instanceof Request ? input.url : input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)),
    });
    const r = ok(answer("hi"));
    return Promise.resolve(new Response(r.body, { status: r.status, headers: r.headers }));
  };
  return { sent, fetch: fetchImpl };
}

Deno.test("the request is the one the openai SDK sends: URL, method, JSON body, bearer key", async () => {
  const model = testModel({ base_url: "http://127.0.0.1:9/v1/" });
  const ours = capturing();
  const provider = createProvider(model, { fetch: ours.fetch, maxAttempts: 1 });
  await provider.complete(userRequest("hello"), () => {});
  const theirs = capturing();
  const sdk = new OpenAI({
    apiKey: model.api_key,
    baseURL: model.base_url,
    fetch: theirs.fetch,
    maxRetries: 0,
    logLevel: "off",
  });
  const body = ours.sent[0].body as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
  await sdk.chat.completions.create(body).asResponse();

  const [a, b] = [ours.sent[0], theirs.sent[0]];
  assert.equal(a.url, "http://127.0.0.1:9/v1/chat/completions");
  assert.equal(a.url, b.url);
  assert.equal(a.method, b.method);
  assert.deepEqual(a.body, b.body);
  for (const name of ["authorization", "content-type", "accept"]) {
    assert.equal(a.headers.get(name), b.headers.get(name), name);
  }
  assert.equal(a.headers.get("user-agent"), `mopac/${VERSION}`);
});

Deno.test("the URL has one slash before chat/completions whatever the base URL ends with", () => {
  assert.equal(chatCompletionsUrl("http://h/v1"), "http://h/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://h/v1/"), "http://h/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://h/v1//"), "http://h/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://h"), "http://h/chat/completions");
});

Deno.test("no key sends no authorization; the model's headers come last and may replace it", async () => {
  const keyless = capturing();
  await createProvider(testModel({ api_key: "" }), { fetch: keyless.fetch, maxAttempts: 1 })
    .complete(userRequest("hello"), () => {});
  assert.equal(keyless.sent[0].headers.get("authorization"), null);

  const custom = capturing();
  const model = testModel({ extra_headers: { Authorization: "Token abc", "X-Team": "ci" } });
  await createProvider(model, { fetch: custom.fetch, maxAttempts: 1 })
    .complete(userRequest("hello"), () => {});
  assert.equal(custom.sent[0].headers.get("authorization"), "Token abc");
  assert.equal(custom.sent[0].headers.get("x-team"), "ci");
});

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
  const again = await provider.complete(userRequest("again"), () => {});
  assert.deepEqual(again.parts, [{ type: "text", text: "answer to again" }]);
  assert.equal(seen.length, 3);
  for (const h of seen) assert.equal(h.get("authorization"), "Bearer sk-test-secret-1234");
});
