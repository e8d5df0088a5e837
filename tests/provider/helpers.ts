/**
 * Shared pieces of the provider tests: a model, a fetch that serves recorded
 * responses (optionally in chunks of N bytes, as a real network may split them),
 * and event collection (the fake clock is tests/_support/fake_clock.ts).
 */
import type { ResolvedModel } from "../../src/catalog/types.ts";
import type { ChatRequest, StreamEvent } from "../../src/provider/types.ts";
import type { ToolSpec } from "../../src/domain/message.ts";
import type { RecordedResponse } from "../_support/provider_fixtures.ts";

export function testModel(over: Partial<ResolvedModel> = {}): ResolvedModel {
  return {
    provider_id: "testprov",
    model_id: "test-model",
    name: "Test Model",
    base_url: "http://127.0.0.1:9/v1",
    api_key: "sk-test-secret-1234",
    api_key_source: "$TESTPROV_API_KEY",
    context_window: 128_000,
    default_max_tokens: 4096,
    pricing: { input: 3, output: 15, cached_input: 0.3 },
    can_reason: false,
    supports_attachments: true,
    unlisted: false,
    priced: true,
    ...over,
  };
}

export const WEATHER_TOOL: ToolSpec = {
  name: "weather",
  description: "Get the weather",
  parameters: { type: "object", properties: { location: { type: "string" } } },
};

export function userRequest(
  text = "hello",
  tools: ToolSpec[] = [],
  signal?: AbortSignal,
): ChatRequest {
  const now = 1_700_000_000_000;
  return {
    system: "You are a test.",
    messages: [{
      id: "m1",
      role: "user",
      parts: [{ type: "text", text }],
      created_at: now,
      updated_at: now,
    }],
    tools,
    signal,
  };
}

/**
 * The bytes of `text` as a stream of `chunkSize`-byte pieces (0 = one piece);
 * with `resetAt`, the stream fails like a reset connection after that many bytes.
 */
export function byteStream(
  text: string,
  chunkSize = 0,
  resetAt?: number,
): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const size = chunkSize > 0 ? chunkSize : Math.max(bytes.length, 1);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (resetAt !== undefined && at >= resetAt) {
        return c.error(new TypeError("error reading a body from connection: connection reset"));
      }
      if (at >= bytes.length) return c.close();
      const end = Math.min(at + size, resetAt ?? Infinity);
      c.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

/** A scripted answer: a response (optionally reset mid-body) or a thrown fetch error. */
export type Scripted =
  | (Pick<RecordedResponse, "status" | "headers" | "body"> & { resetAt?: number })
  | { throws: Error };

export interface ServedCall {
  url: string;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A fetch that answers the n-th call with the n-th response; a call beyond them fails the test. */
export function scriptedFetch(
  responses: Scripted[],
  chunkSize = 0,
): { fetch: typeof fetch; calls: ServedCall[] } {
  const calls: ServedCall[] = [];
  const f = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    calls.push({
      url,
      body: JSON.parse(String(init?.body ?? "{}")),
      headers: new Headers(init?.headers),
    });
    const r = responses[calls.length - 1];
    if (!r) throw new Error(`unexpected request #${calls.length}`);
    if ("throws" in r) return Promise.reject(r.throws);
    const body = byteStream(r.body, chunkSize, r.resetAt);
    return Promise.resolve(new Response(body, { status: r.status, headers: r.headers }));
  };
  return { fetch: f, calls };
}

export function sse(...chunks: unknown[]): string {
  return chunks.map((c) => c === "[DONE]" ? "data: [DONE]\n\n" : `data: ${JSON.stringify(c)}\n\n`)
    .join("");
}

export const SSE_HEADERS = { "content-type": "text/event-stream" };

export function ok(body: string) {
  return { status: 200, headers: SSE_HEADERS, body };
}

export function httpError(status: number, body: unknown, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

export function collector(): { events: StreamEvent[]; onEvent: (e: StreamEvent) => void } {
  const events: StreamEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}
