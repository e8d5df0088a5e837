/**
 * `models` and `providers`: crush's shapes (key names as in crush's schema.json),
 * plus a few mopac extensions marked as such. mopac speaks only OpenAI-compatible
 * chat completions, so provider types that need another wire format are refused
 * with a message that says what to write instead.
 */
import * as z from "zod";

const Num = z.number();
const Price = z.number().nonnegative().describe("USD per 1M tokens");

const ModelOptionsSchema = z.strictObject({
  temperature: Num.min(0).max(2).optional(),
  top_p: Num.min(0).max(1).optional(),
  top_k: z.int().optional(),
  frequency_penalty: Num.optional(),
  presence_penalty: Num.optional(),
  provider_options: z.record(z.string(), z.unknown()).optional(),
});

/** One model a provider offers (crush's `catwalk.Model`; everything but `id` may be left out). */
export const ProviderModelSchema = z.strictObject({
  id: z.string().min(1).describe("Model id as the provider's API expects it"),
  name: z.string().optional(),
  context_window: z.int().positive().optional(),
  default_max_tokens: z.int().positive().optional(),
  cost_per_1m_in: Price.optional(),
  cost_per_1m_out: Price.optional(),
  cost_per_1m_in_cached: Price.optional().describe(
    "USD per 1M tokens written to the prompt cache (crush's meaning of this key)",
  ),
  cost_per_1m_out_cached: Price.optional().describe(
    "USD per 1M input tokens read from the prompt cache (crush's meaning of this key)",
  ),
  can_reason: z.boolean().optional(),
  reasoning_levels: z.array(z.string()).optional(),
  default_reasoning_effort: z.string().optional(),
  supports_attachments: z.boolean().optional(),
  options: ModelOptionsSchema.optional(),
  // mopac extensions
  use_max_completion_tokens: z.boolean().optional().describe(
    "mopac: send max_completion_tokens instead of max_tokens",
  ),
  cache_control: z.boolean().optional().describe("mopac: add prompt-caching markers"),
  supports_parallel_tool_calls: z.boolean().optional(),
});

/** Wire formats that are all OpenAI chat completions underneath. */
const PROVIDER_TYPES = [
  "openai",
  "openai-compat",
  "openrouter",
  "litellm",
  "ollama",
  "lmstudio",
  "vllm",
  "llamacpp",
] as const;

const ProviderType = z.enum(PROVIDER_TYPES, {
  error: (issue) =>
    `provider type ${
      JSON.stringify(issue.input)
    } is not supported: mopac speaks OpenAI-compatible ` +
    `chat completions only; use "openai-compat" with the provider's OpenAI-compatible base_url ` +
    `(one of: ${PROVIDER_TYPES.join(", ")})`,
});

export const ProviderConfigSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string().optional(),
  type: ProviderType.optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional().describe("OpenAI-compatible base URL"),
  api_key: z.string().optional().describe('API key, usually "$ENV_VAR"'),
  api_key_env: z.string().optional().describe(
    "mopac: name of the environment variable that holds the key",
  ),
  disable: z.boolean().optional(),
  system_prompt_prefix: z.string().optional(),
  extra_headers: z.record(z.string(), z.string()).optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  provider_options: z.record(z.string(), z.unknown()).optional(),
  models: z.array(ProviderModelSchema).optional().describe(
    "Prepended to the catalog's list; an entry with the same id overrides its fields",
  ),
  // crush keys that have no meaning for a headless OpenAI-compatible client
  oauth: z.unknown().optional().describe("crush; ignored"),
  discover_models: z.boolean().optional().describe("crush; ignored"),
  flat_rate: z.boolean().optional().describe("crush; ignored"),
  aws_auth_refresh: z.unknown().optional().describe(
    "crush; ignored (mopac runs no command to refresh provider credentials)",
  ),
  // mopac extensions
  use_max_completion_tokens: z.boolean().optional(),
  cache_control: z.boolean().optional(),
});

/** `models.large` / `models.small`. Without `provider`, `model` may be "provider/model" or a bare id. */
const SelectedModelSchema = z.strictObject({
  model: z.string().min(1).describe(
    '"provider/model", a bare model id, or the id when provider is set',
  ),
  provider: z.string().optional(),
  reasoning_effort: z.string().optional(),
  think: z.boolean().optional(),
  max_tokens: z.int().positive().optional(),
  // The sampling options a model entry's `options` takes, set here for the role.
  ...ModelOptionsSchema.shape,
});

export const ModelsSchema = z.strictObject({
  large: SelectedModelSchema.optional(),
  small: SelectedModelSchema.optional(),
});

export type ProviderModelConfig = z.output<typeof ProviderModelSchema>;
export type ProviderConfig = z.output<typeof ProviderConfigSchema>;
export type SelectedModel = z.output<typeof SelectedModelSchema>;
