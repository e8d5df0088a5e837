/**
 * Writes responses of the fake OpenAI server: SSE events with the scripted delays and faults
 * (cut, stall, malformed line, in-band error), recorded fixtures byte for byte in awkward
 * pieces, and HTTP error faults. Every body stops cleanly when the server closes.
 */
import { loadFixture } from "./provider_fixtures.ts";
import type { OpenAIErrorObject, ScriptedTurn, StatusFault } from "./fake_openai_types.ts";

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
