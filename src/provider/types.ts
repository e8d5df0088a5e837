/**
 * The conversation model shared by the provider, the session store and the agent
 * loop. A message is a role plus parts; the session stores exactly this shape
 * (DESIGN §6) and the provider turns it into chat-completions messages.
 */

export type Role = "system" | "user" | "assistant" | "tool";

export interface TextPart {
  type: "text";
  text: string;
}

/** Model reasoning. `details` keeps `reasoning_details` entries verbatim for providers that want them back. */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  details?: unknown[];
}

/** A tool call as the model made it; `input` is the raw JSON text of the arguments. */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  input: string;
}

export interface ImagePart {
  type: "image";
  mime_type: string;
  /** base64 */
  data: string;
}

export interface ToolResultPart {
  type: "tool_result";
  tool_call_id: string;
  name: string;
  content: string;
  is_error: boolean;
  /** Set when the permission gate refused the call. */
  denied?: boolean;
  images?: ImagePart[];
}

export type FinishReason =
  | "stop"
  | "tool_calls"
  | "length"
  | "content_filter"
  | "error"
  | "cancelled";

/** Ends a message; only a finish part sets `finished_at`. */
export interface FinishPart {
  type: "finish";
  reason: FinishReason;
  at: number;
  message?: string;
}

export type Part =
  | TextPart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | ImagePart
  | FinishPart;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache (part of input_tokens). */
  cached_input_tokens: number;
  reasoning_tokens?: number;
  /** True when the provider sent no usage and these are our estimate. */
  estimated?: boolean;
}

export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  created_at: number;
  updated_at: number;
  finished_at?: number;
  /** `provider/model` that wrote an assistant message. */
  model?: string;
  usage?: Usage;
  cost_usd?: number;
}

/** A tool as offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

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
