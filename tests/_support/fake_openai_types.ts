/**
 * Types of the strict fake OpenAI-compatible server (tests/_support/fake_openai.ts).
 * Kept apart so the validator and the stream writer can share them without import cycles.
 */

/** OpenAI's error object: the value of `{"error": ...}` in every error body. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** A chat message as the client sent it (loosely typed: the validator checks the details). */
export interface ChatMessageIn {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: unknown;
  tool_calls?: {
    id: string;
    type: "function";
    function: { name: string; arguments: string };
  }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A request body that passed validation. */
export interface ParsedRequest {
  model: string;
  messages: ChatMessageIn[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: {
    type: "function";
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }[];
  [key: string]: unknown;
}

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
