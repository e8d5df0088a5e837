/**
 * A strict fake OpenAI-compatible chat-completions server on 127.0.0.1 for end-to-end tests.
 *
 *   const fake = await startFakeOpenAI({ turns: [scriptToolCall("view", { file_path: "a" }),
 *                                                scriptText("done")] });
 *   // point the client at fake.url ("http://127.0.0.1:PORT/v1"), run, then:
 *   assert.deepEqual(fake.rejected, []);  await fake.close();
 *
 * It refuses what api.openai.com refuses (fake_openai_validate.ts), answers each accepted
 * request with the next scripted turn (streamed or not, with faults: fake_openai_stream.ts),
 * and records every request. Each server has its own state, so tests can run in parallel.
 * At the end: plain-fetch and SDK helpers for the tests of the fake itself.
 */
import OpenAI from "openai";
import {
  apiError,
  type OpenAIErrorObject,
  type ParsedRequest,
  validateChatRequest,
} from "./fake_openai_validate.ts";
import {
  actionBody,
  completionBody,
  type Fault,
  fixtureResponse,
  type ScriptedToolCall,
  type ScriptedTurn,
  sleep,
  statusFaultResponse,
  streamActions,
  streamEvents,
  type TurnScript,
} from "./fake_openai_stream.ts";

export type { ChatMessageIn, OpenAIErrorObject, ParsedRequest } from "./fake_openai_validate.ts";
export type {
  Fault,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  StatusFault,
  TurnScript,
} from "./fake_openai_stream.ts";
export { apiError, validateChatRequest } from "./fake_openai_validate.ts";

export interface FakeOpenAIOptions {
  turns?: TurnScript;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Ids listed by GET /v1/models. Default ["fake-model"]. */
  models?: string[];
  /** Reject unknown top-level request fields like api.openai.com does. Default false,
   * because gateways (LiteLLM, OpenRouter) accept provider-specific extras. */
  rejectUnknownParams?: boolean;
}

export interface RecordedRequest {
  /** Arrival order of every request the server saw, from 0. */
  index: number;
  /** When the request arrived (Date.now() in the server's process, before its body was read). */
  receivedAt: number;
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The body parsed as JSON; undefined when it was not JSON (see rawBody). */
  body: unknown;
  rawBody: string;
  /** Index of the scripted turn that answered it; undefined when none did. */
  turn?: number;
  /** The verdict: HTTP status the fake itself chose (fault turns keep 200 here) and the error. */
  verdict: { ok: true } | { ok: false; status: number; error: OpenAIErrorObject };
}

export interface RejectedRequest {
  index: number;
  status: number;
  error: OpenAIErrorObject;
}

export interface FakeOpenAI {
  /** Base URL for clients, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests the fake refused: validation (400), auth (401), no scripted turn (500). */
  rejected: RejectedRequest[];
  /** Bodies of the requests that were answered by a scripted turn, in order. */
  turnRequests(): ParsedRequest[];
  close(): Promise<void>;
}

/** A turn that answers with text. */
export function scriptText(text: string, extra: Partial<ScriptedTurn> = {}): ScriptedTurn {
  return { text, ...extra };
}

/** A turn with one tool call; `args` may be an object or a raw (even invalid) JSON string. */
export function scriptToolCall(
  name: string,
  args: ScriptedToolCall["arguments"],
  id?: string,
  extra: Partial<ScriptedTurn> = {},
): ScriptedTurn {
  return { tool_calls: [{ name, arguments: args, ...(id ? { id } : {}) }], ...extra };
}

/** A turn with several (parallel) tool calls. */
export function scriptToolCalls(
  calls: ScriptedToolCall[],
  extra: Partial<ScriptedTurn> = {},
): ScriptedTurn {
  return { tool_calls: calls, ...extra };
}

/** A turn that fails; `extra` may carry text or tool calls for the chunks before a fault. */
export function scriptFault(fault: Fault, extra: Partial<ScriptedTurn> = {}): ScriptedTurn {
  return { ...extra, fault };
}

const NO_KEY_MESSAGE = "You didn't provide an API key. You need to provide your API key in an " +
  "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the " +
  "password field (with blank username) if you're accessing the API from your browser and are " +
  "prompted for a username and password. You can obtain an API key from " +
  "https://platform.openai.com/account/api-keys.";

function authError(header: string | null, apiKey: string | undefined): OpenAIErrorObject | null {
  if (apiKey === undefined) return null;
  if (!header) return apiError(NO_KEY_MESSAGE);
  if (header === `Bearer ${apiKey}`) return null;
  const given = header.replace(/^Bearer\s+/i, "");
  const masked = given.length <= 8
    ? "*".repeat(given.length)
    : `${given.slice(0, 3)}${"*".repeat(Math.min(given.length - 7, 20))}${given.slice(-4)}`;
  return apiError(
    `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    null,
    "invalid_api_key",
  );
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function pickTurn(script: TurnScript | undefined, req: ParsedRequest, index: number) {
  if (typeof script === "function") return script(req, index);
  return script?.[index];
}

export function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const stop = new AbortController();
  const requests: RecordedRequest[] = [];
  const rejected: RejectedRequest[] = [];
  const answered: ParsedRequest[] = [];
  let turns = 0;

  async function handle(req: Request): Promise<Response> {
    const receivedAt = Date.now();
    const path = new URL(req.url).pathname;
    const rawBody = await req.text();
    let body: unknown = undefined;
    try {
      body = JSON.parse(rawBody);
    } catch { /* recorded as rawBody; the validator reports it */ }
    const rec: RecordedRequest = {
      index: requests.length,
      receivedAt,
      method: req.method,
      path,
      headers: Object.fromEntries(req.headers),
      body,
      rawBody,
      verdict: { ok: true },
    };
    requests.push(rec);
    const refuse = (status: number, error: OpenAIErrorObject) => {
      rec.verdict = { ok: false, status, error };
      rejected.push({ index: rec.index, status, error });
      return json(status, { error });
    };
    const scriptError = (message: string, code: string) =>
      refuse(500, apiError(`fake OpenAI: ${message}`, null, code, "server_error"));

    const auth = authError(req.headers.get("authorization"), opts.apiKey);
    if (auth) return refuse(401, auth);
    if (req.method === "GET" && path === "/v1/models") {
      const data = (opts.models ?? ["fake-model"]).map((id) => ({
        id,
        object: "model",
        created: 1700000000,
        owned_by: "fake-openai",
      }));
      return json(200, { object: "list", data });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return refuse(404, apiError(`Invalid URL (${req.method} ${path})`));
    }
    const invalid = validateChatRequest(body, opts);
    if (invalid) return refuse(400, invalid);

    const parsed = body as ParsedRequest;
    const index = turns;
    let turn: ScriptedTurn | undefined;
    try {
      turn = pickTurn(opts.turns, parsed, index);
    } catch (e) {
      return scriptError(`the turns function threw for turn ${index}: ${e}`, "script_error");
    }
    if (!turn) {
      const size = Array.isArray(opts.turns) ? `${opts.turns.length} turns` : "a turns function";
      return scriptError(
        `no scripted turn for request #${rec.index} (turn ${index}; the script has ${size})`,
        "script_exhausted",
      );
    }
    turns++;
    rec.turn = index;
    answered.push(parsed);

    const fault = turn.fault;
    const delayMs = turn.delayMs ?? 0;
    if (fault && "status" in fault) return statusFaultResponse(fault);
    if (fault && "fixture" in fault) {
      return fixtureResponse(fault.fixture, fault.splitEvery, delayMs, stop.signal);
    }
    const ctx = {
      turn: index,
      model: parsed.model,
      includeUsage: parsed.stream_options?.include_usage === true,
      promptChars: JSON.stringify(parsed.messages).length,
    };
    const headers = { "x-request-id": `req_fake_${rec.index}`, ...turn.headers };
    if (!parsed.stream) {
      if (fault) {
        const kind = Object.keys(fault)[0];
        return scriptError(
          `fault '${kind}' of turn ${index} needs a request with stream: true`,
          "script_error",
        );
      }
      if (delayMs > 0) await sleep(delayMs, stop.signal);
      return json(200, completionBody(turn, ctx), headers);
    }
    const actions = streamActions(streamEvents(turn, ctx), turn);
    return new Response(actionBody(actions, delayMs, stop.signal), {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        ...headers,
      },
    });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  const port = server.addr.port;
  let closing: Promise<void> | undefined;
  return Promise.resolve({
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    rejected,
    turnRequests: () => [...answered],
    close() {
      // Abort first: shutdown() waits for open responses, and a stalled one would hold it.
      stop.abort();
      closing ??= server.shutdown();
      return closing;
    },
  });
}

/** Runs `fn` against a fake started with `opts`, and closes the fake whatever happens. */
export async function withFakeOpenAI(
  opts: FakeOpenAIOptions,
  fn: (fake: FakeOpenAI) => Promise<void>,
): Promise<void> {
  const fake = await startFakeOpenAI(opts);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

// Helpers for the tests of the fake itself.

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
