/**
 * What `mopac models` shows: every provider (catalog plus config) with whether
 * it can be used right now and why not, and every model it lists with its
 * limits and prices. No secrets: only where a key would come from.
 */
import { keyOf, providerEntries, type ProviderEntry, usableForBareIds } from "./providers.ts";
import { pricingOf, type ResolveContext } from "./resolve_model.ts";
import type { Pricing } from "../domain/usage.ts";

export interface ProviderListing {
  id: string;
  name: string;
  type: string;
  base_url?: string;
  /** Has a key, or needs none and is configured. */
  usable: boolean;
  /** Where the key comes from ("$OPENAI_API_KEY"), or what to do to use the provider. */
  status: string;
  api_key_env?: string;
  gateway: boolean;
  local: boolean;
  builtin: boolean;
  configured: boolean;
  disabled: boolean;
  model_count: number;
}

export interface ModelListing {
  provider_id: string;
  model_id: string;
  /** `provider/model`, what -m takes. */
  ref: string;
  name: string;
  context_window?: number;
  default_max_tokens?: number;
  pricing: Pricing;
  can_reason: boolean;
  supports_attachments: boolean;
  /** The provider is usable right now. */
  usable: boolean;
  /** Listed by config rather than (only) by the built-in catalog. */
  from_config: boolean;
}

export function listProviders(ctx: ResolveContext): ProviderListing[] {
  return providerEntries(ctx.config, ctx.catalog)
    .map((e) => ({
      id: e.id,
      name: e.name,
      type: e.type,
      base_url: e.base_url,
      usable: usableForBareIds(e, ctx.env),
      status: statusOf(e, ctx.env),
      api_key_env: e.api_key_env,
      gateway: e.gateway,
      local: e.local,
      builtin: e.builtin,
      configured: e.configured,
      disabled: e.disabled,
      model_count: e.models.length,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function statusOf(e: ProviderEntry, env: ResolveContext["env"]): string {
  if (e.disabled) return `disabled in config (providers.${e.id}.disable)`;
  if (!e.base_url) return `providers.${e.id}.base_url is not set`;
  const key = keyOf(e, env);
  if (!key.ok) return key.hint;
  if (key.key === undefined && !e.configured) {
    return `no key needed; pick it with -m ${e.id}/<model> or configure providers.${e.id}`;
  }
  return `key from ${key.source}`;
}

export function listModels(ctx: ResolveContext): ModelListing[] {
  const userIds = (id: string) =>
    new Set((ctx.config.providers?.[id]?.models ?? []).map((m) => m.id));
  const out: ModelListing[] = [];
  for (const e of providerEntries(ctx.config, ctx.catalog)) {
    if (e.disabled) continue;
    const usable = usableForBareIds(e, ctx.env);
    const fromConfig = userIds(e.id);
    for (const m of e.models) {
      out.push({
        provider_id: e.id,
        model_id: m.id,
        ref: `${e.id}/${m.id}`,
        name: m.name ?? m.id,
        context_window: m.context_window,
        default_max_tokens: m.default_max_tokens,
        pricing: pricingOf(m),
        can_reason: m.can_reason ?? false,
        supports_attachments: m.supports_attachments ?? false,
        usable,
        from_config: fromConfig.has(m.id),
      });
    }
  }
  return out.sort((a, b) =>
    a.provider_id.localeCompare(b.provider_id) || a.model_id.localeCompare(b.model_id)
  );
}
