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
  | { type: "retry"; attempt: number; delay_ms: number; reason: string };

/** One finished model response. */
export interface ProviderTurn {
  /** Reasoning, text and tool calls in the order they arrived. */
  parts: Array<TextPart | ReasoningPart | ToolCallPart>;
  finish_reason: FinishReason;
  usage: Usage;
  cost_usd: number;
}

export interface Provider {
  /** `provider/model` as shown to users. */
  readonly label: string;
  /** Streams one response; throws ProviderError when it fails for good. */
  complete(req: ChatRequest, onEvent: (e: StreamEvent) => void): Promise<ProviderTurn>;
}
