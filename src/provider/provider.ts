/**
 * The Provider for one resolved model: builds the request, sends each attempt
 * (chat_post.ts) with mopac's own retry policy, reads the stream (read_stream.ts)
 * into a ProviderTurn with usage and cost. Each retry emits a `retry` event before any
 * delta of the new attempt, so consumers drop the partial message first.
 */
import type { ResolvedModel } from "../catalog/types.ts";
import { costOf } from "../domain/usage.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import type { ChatRequest, Provider, ProviderTurn, StreamEvent } from "./types.ts";
import type { FinishReason } from "../domain/message.ts";
import { abortError, ProviderError } from "./errors.ts";
import { buildChatBody, type ChatBody } from "./request.ts";
import { attemptFetch, Exchange } from "./attempt_fetch.ts";
import { toProviderError } from "./attempt_errors.ts";
import { classifyStreamError, type ErrorContext } from "./http_errors.ts";
import { postChatCompletion } from "./chat_post.ts";
import { StreamAssembler } from "./stream_assembler.ts";
import { readChatStream } from "./read_stream.ts";
import { decideRetry, DEFAULT_RETRY_POLICY, formatMs, type RetryPolicy } from "./retry.ts";
import { estimateUsage } from "./usage.ts";
import { Recorder, replayFetch } from "./record_replay.ts";
import { cassetteSecrets } from "../secrets/sources.ts";

export interface ProviderOptions {
  clock?: Clock;
  /** Total attempts per call, the first included (default 5). */
  maxAttempts?: number;
  /** A server-requested wait above this fails at once (default 60 000). */
  maxRetryDelayMs?: number;
  /** No bytes for this long aborts the attempt (default 60 000). */
  idleTimeoutMs?: number;
  recordPath?: string;
  replayPath?: string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  /** Jitter source in [0, 1); tests pin it. */
  random?: () => number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

export function createProvider(model: ResolvedModel, opts: ProviderOptions = {}): Provider {
  const label = `${model.provider_id}/${model.model_id}`;
  const clock = opts.clock ?? systemClock;
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxAttempts: opts.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    maxRetryDelayMs: opts.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxRetryDelayMs,
    random: opts.random ?? DEFAULT_RETRY_POLICY.random,
  };
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const base: typeof fetch = opts.replayPath
    ? replayFetch(opts.replayPath)
    : opts.fetch ?? ((input, init) => fetch(input, init));
  const recorder = opts.recordPath
    ? new Recorder(opts.recordPath, cassetteSecrets(model))
    : undefined;
  const errorContext = (): ErrorContext => ({
    label,
    providerId: model.provider_id,
    keySource: model.api_key_source,
    hasKey: Boolean(model.api_key),
    nowMs: clock.now(),
  });

  async function runAttempt(
    body: ChatBody,
    signal: AbortSignal | undefined,
    onEvent: (e: StreamEvent) => void,
  ): Promise<ProviderTurn> {
    // Only a cassette needs the whole body; errors and checks need its beginning.
    const ex = new Exchange({ keepBody: recorder !== undefined });
    const attemptFetchImpl = attemptFetch({ base, idleTimeoutMs, exchange: ex, label });
    const asm = new StreamAssembler(onEvent);
    const fail = (e: unknown, phase: "request" | "stream") =>
      toProviderError(e, ex, phase, errorContext(), model.base_url);
    let sawDone = false;
    try {
      let response: Response;
      try {
        response = await postChatCompletion(model, body, { fetch: attemptFetchImpl, signal });
      } catch (e) {
        throw fail(e, "request");
      }
      ({ sawDone } = await readChatStream(response.body, asm, {
        label,
        streamError: (error) => classifyStreamError(error, errorContext()),
        readError: (e) => fail(e, "stream"),
        signal,
      }));
    } finally {
      if (recorder && ex.responded) await recorder.write(ex);
    }
    if (signal?.aborted) throw abortError();
    return finishTurn(asm, ex, body, sawDone || ex.synthesized);
  }

  function finishTurn(
    asm: StreamAssembler,
    ex: Exchange,
    body: ChatBody,
    done: boolean,
  ): ProviderTurn {
    const res = asm.result();
    let finish: FinishReason | undefined = res.finishReason;
    if (!finish) {
      const raw = ex.text();
      if (res.parts.length === 0 && raw.trim() !== "" && !/(^|\n)data:/.test(raw)) {
        // A login page or a proxy's HTML is not worth retrying.
        const type = ex.headers["content-type"] ?? "no content-type";
        throw new ProviderError(
          "bad_request",
          `${label}: the answer is not a chat-completions stream (HTTP ${ex.status}, ${type}): ` +
            raw.trim().slice(0, 200),
          { status: ex.status, hint: `check the base URL ${model.base_url}` },
        );
      }
      if (!done || res.parts.length === 0) {
        throw new ProviderError(
          "cut",
          `${label}: the stream was cut: it ended before the response was complete ` +
            `(no finish_reason${done ? ", nothing but [DONE]" : " and no [DONE]"})`,
        );
      }
      finish = asm.hasToolCalls ? "tool_calls" : "stop";
    }
    const usage = res.usage ?? estimateUsage(
      JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length,
      res.parts.reduce(
        (n, p) => n + (p.type === "tool_call" ? p.name.length + p.input.length : p.text.length),
        0,
      ),
    );
    return {
      parts: res.parts,
      finish_reason: finish,
      usage,
      cost_usd: costOf(usage, model.pricing),
    };
  }

  async function complete(
    req: ChatRequest,
    onEvent: (e: StreamEvent) => void,
  ): Promise<ProviderTurn> {
    const signal = req.signal;
    if (signal?.aborted) throw abortError();
    if (!/^https?:$/.test(URL.parse(model.base_url)?.protocol ?? "")) {
      throw new ProviderError(
        "bad_request",
        `${label}: the base URL "${model.base_url}" is not an http(s) URL`,
        {
          hint:
            `set providers.${model.provider_id}.base_url to the endpoint, e.g. http://localhost:4000/v1`,
        },
      );
    }
    const body = buildChatBody(model, req);
    for (let attempt = 1;; attempt++) {
      try {
        return await runAttempt(body, signal, onEvent);
      } catch (e) {
        if (signal?.aborted) throw abortError();
        if (!(e instanceof ProviderError)) throw e;
        const decision = decideRetry(e, attempt, policy);
        if (!decision.retry) throw decision.error;
        onEvent({
          type: "retry",
          attempt: attempt + 1,
          delay_ms: decision.delayMs,
          reason: e.message,
        });
        // The model's name starts the line; the message may repeat it and a URL.
        const brief = e.brief ?? e.message.replace(`${label}: `, "");
        opts.log?.(
          `${label}: attempt ${attempt} failed (${e.kind}); retrying in ${
            formatMs(decision.delayMs)
          }: ${brief}`,
        );
        try {
          await clock.sleep(decision.delayMs, signal);
        } catch (sleepError) {
          if (signal?.aborted) throw abortError();
          throw sleepError;
        }
      }
    }
  }

  return { label, complete };
}
