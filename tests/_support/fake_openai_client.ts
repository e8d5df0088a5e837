/**
 * Small plain-fetch helpers for talking to the fake OpenAI server in tests: post a request
 * body and read an SSE body back as its `data:` payloads.
 */
import OpenAI from "openai";
import type { FakeOpenAI } from "./fake_openai_types.ts";

/** POST /v1/chat/completions; a string body is sent as is (to test non-JSON bodies). */
export function postChat(
  fake: FakeOpenAI,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The `data:` payloads of an SSE body, in order (comments and event names dropped). */
export function sseData(body: string): string[] {
  return body.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) =>
    l.slice(5).trimStart()
  );
}

/** The parsed chunks of an SSE body, `[DONE]` and unparsable lines left out. */
export function sseChunks(body: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const d of sseData(body)) {
    try {
      out.push(JSON.parse(d));
    } catch { /* [DONE] or a malformed line: callers look at sseData for those */ }
  }
  return out;
}

/** An `openai` client on the fake, with the SDK's own retries and logging off. */
export function openaiClient(fake: FakeOpenAI, apiKey = "test"): OpenAI {
  return new OpenAI({ baseURL: fake.url, apiKey, maxRetries: 0, logLevel: "off" });
}

/** A minimal valid request body; `extra` is merged on top. */
export function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: "fake-model", messages: [{ role: "user", content: "hi" }], ...extra };
}
