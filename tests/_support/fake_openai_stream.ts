/**
 * What the strict fake OpenAI server sends back: a scripted turn as api.openai.com would
 * send it (the SSE chunks: role, reasoning, content, tool-call deltas, finish, usage; or
 * a chat.completion object), written with the scripted delays and faults (cut, stall,
 * malformed line, in-band error), recorded fixtures byte for byte in awkward pieces, and
 * HTTP error faults. Every body stops cleanly when the server closes. Also the types of
 * a script.
 */
import { loadFixture } from "./provider_fixtures.ts";
import type { OpenAIErrorObject, ParsedRequest } from "./fake_openai_validate.ts";

export interface ScriptedToolCall {
  /** Default: `call_<turn>_<i>`, unique within one server. */
  id?: string;
  name: string;
  /** An object is sent as its JSON text; a string is sent as is (may be invalid JSON on purpose). */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

/** An HTTP error response instead of a completion. */
export interface StatusFault {
  status: number;
  headers?: Record<string, string>;
  /** Default: an OpenAI-shaped error for the status. A string is sent verbatim. */
  body?: string | Record<string, unknown>;
}

/**
 * Stream faults count chunks as `data:` events written, the role chunk being the first.
 * They apply to streaming requests only (a non-streaming request gets a 500 saying so).
 */
export type Fault =
  | StatusFault
  /** End the body after n chunks: no finish_reason, no [DONE]. `reset` errors the body instead
   * of ending it, so the client sees a connection error (Deno logs one line on stderr). */
  | { cutAfterChunks: number; reset?: boolean }
  /** Send nothing for stallMs after n chunks (connection open), then go on; close() ends it. */
  | { stallAfterChunks: number; stallMs: number }
  /** A `data:` line of invalid JSON after n chunks; the stream then goes on. */
  | { malformedAfterChunks: number }
  /** `data: {"error": error}` after n chunks of a 200 stream, then `data: [DONE]` (OpenRouter). */
  | { errorChunkAfter: number; error?: Record<string, unknown> }
  /** Serve a recorded response (loadFixture) with its status and headers, body bytes unchanged,
   * written in pieces of splitEvery bytes (mid-line, mid-UTF-8) with turn.delayMs between. */
  | { fixture: string; splitEvery?: number };

export interface ScriptedTurn {
  text?: string;
  /** Streamed as `reasoning_content` deltas before the text. */
  reasoning?: string;
  tool_calls?: ScriptedToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop". */
  finish_reason?: string;
  /** Default: estimated from the request and the output (4 characters a token).
   * null: no usage at all (no usage chunk even when include_usage is asked for). */
  usage?: ScriptedUsage | null;
  /** Characters (code points) per content/reasoning/arguments delta. Default 16. */
  chunkSize?: number;
  /** Pause before each chunk after the first. Default 0. */
  delayMs?: number;
  /** Extra response headers of a successful response. */
  headers?: Record<string, string>;
  fault?: Fault;
}

export type TurnScript =
  | ScriptedTurn[]
  /** Return undefined when the script has nothing for this request (→ 500). */
  | ((req: ParsedRequest, index: number) => ScriptedTurn | undefined);

export interface TurnContext {
  /** Index of the scripted turn, used in ids. */
  turn: number;
  model: string;
  includeUsage: boolean;
  /** Characters of the request's messages, for the default prompt token estimate. */
  promptChars: number;
}

interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

const DEFAULT_CHUNK = 16;

function wireCalls(turn: ScriptedTurn, ctx: TurnContext): WireToolCall[] {
  return (turn.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${ctx.turn}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
  }));
}

function usageOf(turn: ScriptedTurn, ctx: TurnContext, calls: WireToolCall[]) {
  if (turn.usage === null) return null;
  const tokens = (s: string) => Math.ceil([...s].length / 4);
  const reasoning = turn.usage?.reasoning_tokens ?? tokens(turn.reasoning ?? "");
  const out = tokens(turn.text ?? "") + reasoning +
    calls.reduce((n, c) => n + tokens(c.name + c.arguments) + 3, 0);
  const prompt = turn.usage?.prompt_tokens ?? Math.max(1, Math.ceil(ctx.promptChars / 4));
  const completion = turn.usage?.completion_tokens ?? Math.max(1, out);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: turn.usage?.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(turn: ScriptedTurn): string {
  return turn.finish_reason ?? (turn.tool_calls?.length ? "tool_calls" : "stop");
}

/** Splits by code points, so a delta never ends in half a surrogate pair. */
function pieces(s: string, size: number): string[] {
  const chars = [...s];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

const created = () => Math.floor(Date.now() / 1000);

/** The `data: …\n\n` events of a streamed turn, [DONE] excluded. */
export function streamEvents(turn: ScriptedTurn, ctx: TurnContext): string[] {
  const size = Math.max(1, turn.chunkSize ?? DEFAULT_CHUNK);
  const calls = wireCalls(turn, ctx);
  const base = {
    id: `chatcmpl-fake-${ctx.turn}`,
    object: "chat.completion.chunk",
    created: created(),
    model: ctx.model,
    system_fingerprint: "fp_fake",
  };
  // api.openai.com puts `usage: null` on every chunk when usage was asked for.
  const tail = ctx.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...tail,
      })
    }\n\n`;
  const events = [chunk({ role: "assistant", content: turn.text ? "" : null, refusal: null })];
  for (const p of pieces(turn.reasoning ?? "", size)) events.push(chunk({ reasoning_content: p }));
  for (const p of pieces(turn.text ?? "", size)) events.push(chunk({ content: p }));
  calls.forEach((c, index) => {
    events.push(chunk({
      tool_calls: [{
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: "" },
      }],
    }));
    for (const p of pieces(c.arguments, size)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    }
  });
  events.push(chunk({}, finishReason(turn)));
  const usage = usageOf(turn, ctx, calls);
  if (ctx.includeUsage && usage) {
    events.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  }
  return events;
}

/** The chat.completion object of a non-streaming request. */
export function completionBody(turn: ScriptedTurn, ctx: TurnContext): Record<string, unknown> {
  const calls = wireCalls(turn, ctx);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: turn.text ?? null,
    refusal: null,
  };
  if (turn.reasoning) message.reasoning_content = turn.reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const usage = usageOf(turn, ctx, calls);
  return {
    id: `chatcmpl-fake-${ctx.turn}`,
    object: "chat.completion",
    created: created(),
    model: ctx.model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    ...(usage ? { usage } : {}),
  };
}

const encoder = new TextEncoder();

export type Action = { write: string | Uint8Array } | { pause: number } | {
  end: "close" | "reset";
};

const DONE = "data: [DONE]\n\n";
const SERVER_ERROR: OpenAIErrorObject = {
  message: "The server had an error while processing your request. Sorry about that!",
  type: "server_error",
  param: null,
  code: null,
};

/** The actions that send `events` with the turn's stream fault applied. */
export function streamActions(events: string[], turn: ScriptedTurn): Action[] {
  const w = (list: string[]): Action[] => list.map((write) => ({ write }));
  const f = turn.fault;
  if (f && "cutAfterChunks" in f) {
    return [...w(events.slice(0, f.cutAfterChunks)), { end: f.reset ? "reset" : "close" }];
  }
  if (f && "stallAfterChunks" in f) {
    const n = f.stallAfterChunks;
    return [...w(events.slice(0, n)), { pause: f.stallMs }, ...w([...events.slice(n), DONE])];
  }
  if (f && "malformedAfterChunks" in f) {
    const n = f.malformedAfterChunks;
    const bad =
      `data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"delta":{"conte\n\n`;
    return w([...events.slice(0, n), bad, ...events.slice(n), DONE]);
  }
  if (f && "errorChunkAfter" in f) {
    const error = f.error ?? SERVER_ERROR;
    return w([
      ...events.slice(0, f.errorChunkAfter),
      `data: ${JSON.stringify({ error })}\n\n`,
      DONE,
    ]);
  }
  return w([...events, DONE]);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

/** A body that performs the actions; `stop` (server close) ends it cleanly at once. */
export function actionBody(
  actions: Action[],
  delayMs: number,
  stop: AbortSignal,
): ReadableStream<Uint8Array> {
  const cancelled = new AbortController();
  const signal = AbortSignal.any([stop, cancelled.signal]);
  const run = async (c: ReadableStreamDefaultController<Uint8Array>) => {
    let first = true;
    for (const a of actions) {
      if (signal.aborted) break;
      if ("pause" in a) await sleep(a.pause, signal);
      else if ("end" in a) {
        if (a.end === "reset") {
          return c.error("fake OpenAI: scripted connection reset (a cutAfterChunks fault)");
        }
        break;
      } else {
        if (!first && delayMs > 0) await sleep(delayMs, signal);
        if (signal.aborted) break;
        first = false;
        c.enqueue(typeof a.write === "string" ? encoder.encode(a.write) : a.write);
      }
    }
    c.close();
  };
  return new ReadableStream<Uint8Array>({
    start(c) {
      // Errors here only mean the client went away and cancel() already ran.
      run(c).catch(() => {});
    },
    cancel() {
      cancelled.abort();
    },
  });
}

/** A recorded response, its body cut into `splitEvery`-byte writes. */
export function fixtureResponse(
  name: string,
  splitEvery: number | undefined,
  delayMs: number,
  stop: AbortSignal,
): Response {
  const rec = loadFixture(name);
  const bytes = encoder.encode(rec.body);
  const step = Math.max(1, splitEvery ?? bytes.length);
  const actions: Action[] = [];
  for (let i = 0; i < bytes.length; i += step) actions.push({ write: bytes.slice(i, i + step) });
  return new Response(actionBody(actions, delayMs, stop), {
    status: rec.status,
    headers: rec.headers,
  });
}

const STATUS_ERRORS: Record<number, OpenAIErrorObject> = {
  401: {
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    param: null,
    code: "invalid_api_key",
  },
  429: {
    message: "Rate limit reached for requests. Please try again later.",
    type: "requests",
    param: null,
    code: "rate_limit_exceeded",
  },
};

export function statusFaultResponse(f: StatusFault): Response {
  const body = typeof f.body === "string"
    ? f.body
    : JSON.stringify(f.body ?? { error: STATUS_ERRORS[f.status] ?? SERVER_ERROR });
  return new Response(body, {
    status: f.status,
    headers: { "content-type": "application/json", ...f.headers },
  });
}
