/**
 * What the provider layer offers the agent loop: one streamed model response per
 * call. The conversation it carries is the domain model (src/domain).
 */
import type {
  FinishReason,
  Message,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolSpec,
} from "../domain/message.ts";
import type { Usage } from "../domain/usage.ts";

export interface ChatRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  signal?: AbortSignal;
}

/**
 * What the provider reports while a response streams. `retry` means the attempt so
 * far is void: consumers drop the partial message before the next deltas arrive.
 */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; delta: string }
  /** `model`: the attempt about to start runs on another model (`--fallback-model`). */
  | { type: "retry"; attempt: number; delay_ms: number; reason: string; model?: string };

/** One finished model response. */
export interface ProviderTurn {
  /** Reasoning, text and tool calls in the order they arrived. */
  parts: Array<TextPart | ReasoningPart | ToolCallPart>;
  finish_reason: FinishReason;
  usage: Usage;
  cost_usd: number;
}

/**
 * One model behind an OpenAI-compatible endpoint (`createProvider`, provider.ts).
 *
 * Contract of `complete`: it streams one response, calling `onEvent` for each piece
 * as it arrives, and resolves with the assembled turn (parts, finish reason, usage,
 * cost). Failed attempts that are worth another are retried inside; before the next
 * attempt's first piece it sends a `retry` event, after which the pieces of the
 * attempt so far are void. When the call fails for good it throws ProviderError
 * (its `kind` says why: auth, rate_limit, context_length, …); when `req.signal`
 * aborts it throws a DOMException named "AbortError". `onEvent` must not throw.
 *
 * @example A provider that answers from a script (what the loop's tests do)
 * ```ts
 * import type { Provider } from "./types.ts";
 *
 * const canned: Provider = {
 *   label: "test/canned",
 *   complete(_req, onEvent) {
 *     onEvent({ type: "text", delta: "Done." });
 *     return Promise.resolve({
 *       parts: [{ type: "text", text: "Done." }],
 *       finish_reason: "stop",
 *       usage: { input_tokens: 10, output_tokens: 2, cached_input_tokens: 0 },
 *       cost_usd: 0,
 *     });
 *   },
 * };
 * const turn = await canned.complete({ system: "", messages: [], tools: [] }, () => {});
 * if (turn.finish_reason !== "stop") throw new Error("a canned answer stops");
 * ```
 */
export interface Provider {
  /** `provider/model` as shown to users. */
  readonly label: string;
  /**
   * Streams one response.
   * @throws {ProviderError} when the call fails for good, after retries
   */
  complete(req: ChatRequest, onEvent: (e: StreamEvent) => void): Promise<ProviderTurn>;
}
