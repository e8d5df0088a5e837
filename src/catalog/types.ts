import type { Pricing } from "../domain/usage.ts";

/** A model ready to be called: catalog facts merged with config. */
export interface ResolvedModel {
  provider_id: string;
  model_id: string;
  /** Display name. */
  name: string;
  base_url: string;
  /**
   * The variable that may override `base_url` (`LITELLM_BASE_URL`, …), which the run
   * reads whether or not it is set; absent for providers the catalog does not know.
   */
  base_url_env?: string;
  /** Resolved key, or undefined for keyless local servers. Never logged. */
  api_key?: string;
  /** Where the key comes from, for messages: `$OPENAI_API_KEY` or `providers.x.api_key`. */
  api_key_source: string;
  context_window: number;
  default_max_tokens: number;
  pricing: Pricing;
  /**
   * The config or the catalog gives this model a price (0 counts: a free local model).
   * Without one its cost reads 0, and a cost limit could not hold it.
   */
  priced: boolean;
  can_reason: boolean;
  supports_attachments: boolean;
  /** True when the id is not in the catalog and limits are conservative guesses. */
  unlisted: boolean;
  /** Use `max_completion_tokens` instead of `max_tokens` (OpenAI reasoning models). */
  use_max_completion_tokens?: boolean;
  reasoning_effort?: string;
  extra_headers?: Record<string, string>;
  extra_body?: Record<string, unknown>;
  system_prompt_prefix?: string;
  /** Sampling options set in config, sent only when present. */
  temperature?: number;
  top_p?: number;
  /** Add prompt-caching markers (Anthropic behind LiteLLM/OpenRouter). */
  cache_control?: boolean;
  supports_parallel_tool_calls?: boolean;
}
