/**
 * The built-in catalog: catalog.json, imported so `deno compile` embeds it. Its
 * provider and model entries use the config's key names, so merging a user's
 * `providers` block over it is the same operation as merging config layers.
 */
import catalogJson from "../../catalog.json" with { type: "json" };
import type { ProviderModelConfig } from "../config/schema.ts";

export interface CatalogProvider {
  name: string;
  type: string;
  base_url: string;
  /** The variable that holds the key; null for servers that take none. */
  api_key_env: string | null;
  /** A key is accepted but not needed (vLLM without --api-key). */
  key_optional?: boolean;
  /** Runs on this machine; usable without a key once chosen or configured. */
  local?: boolean;
  /** Serves arbitrary model ids (LiteLLM, OpenRouter, vLLM). */
  gateway?: boolean;
  use_max_completion_tokens?: boolean;
  cache_control?: boolean;
  models: ProviderModelConfig[];
}

export interface Catalog {
  providers: Record<string, CatalogProvider>;
}

export const BUILTIN_CATALOG: Catalog = catalogJson as unknown as Catalog;

/** Limits for a model id the catalog and config do not list. */
export const UNLISTED_LIMITS = {
  /** Small enough for nearly every model served today, so summarizing starts early rather than late. */
  context_window: 32_768,
  default_max_tokens: 4_096,
} as const;
