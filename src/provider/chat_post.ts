/**
 * The HTTP request of one chat-completions attempt: a POST of the JSON body to
 * `<base_url>/chat/completions` with the model's key and headers, sent through the
 * attempt's fetch (idle timeout, the exchange kept for errors and cassettes).
 *
 * This is all mopac used npm:openai for at run time; the SSE body was already read
 * by our own reader. Loading the SDK (about 240 modules) cost ~100 ms of every start
 * and ~20 MiB, so the request is sent here, on the SDK's conventions (URL joining,
 * bearer auth, headers), and the SDK stays the reference the fake server is tested
 * against (tests/_support/fake_openai.ts). Nothing is read from the environment.
 */
import type { ResolvedModel } from "../catalog/types.ts";
import { VERSION } from "../util/version.ts";
import type { ChatBody } from "./request.ts";

/** An answer outside 2xx; its body is in the attempt's exchange (read before this is thrown). */
export class HttpStatusError extends Error {
  readonly status: number;
  readonly headers: Headers;

  constructor(status: number, headers: Headers) {
    super(`HTTP ${status}`);
    this.name = "HttpStatusError";
    this.status = status;
    this.headers = headers;
  }
}

/** `<base_url>/chat/completions`, one slash between them whatever the base URL ends with. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

export interface PostOptions {
  /** The attempt's fetch. */
  fetch: typeof fetch;
  signal?: AbortSignal;
}

/**
 * Sends the request; resolves to the response of a 2xx answer (its body unread) and
 * throws HttpStatusError for any other status once its body has been read.
 */
export async function postChatCompletion(
  model: ResolvedModel,
  body: ChatBody,
  opts: PostOptions,
): Promise<Response> {
  const headers = new Headers({
    "accept": "application/json",
    "content-type": "application/json",
    "user-agent": `mopac/${VERSION}`,
  });
  if (model.api_key) headers.set("authorization", `Bearer ${model.api_key}`);
  // The model's own headers come last, so a provider may replace the auth header.
  for (const [name, value] of Object.entries(model.extra_headers ?? {})) headers.set(name, value);
  const res = await opts.fetch(chatCompletionsUrl(model.base_url), {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: opts.signal,
  });
  if (!res.ok) {
    // Reading the body puts it in the exchange, where the error's classification finds it.
    await res.text().catch(() => "");
    throw new HttpStatusError(res.status, res.headers);
  }
  return res;
}
