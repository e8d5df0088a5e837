/**
 * The providers a run can use: the built-in catalog with the config's
 * `providers` block merged over it (fields override; models are prepended and
 * an entry with the same id overrides the catalog's field by field), and where
 * each provider's API key comes from.
 */
import type { Config, ProviderConfig, ProviderModelConfig } from "../config/schema.ts";
import { BUILTIN_CATALOG, type Catalog, type CatalogProvider } from "./data.ts";

export interface ProviderEntry {
  id: string;
  name: string;
  type: string;
  base_url?: string;
  /** From config, already expanded ("$OPENAI_API_KEY" → the key). */
  api_key?: string;
  api_key_env?: string;
  /**
   * The variable that overrides `base_url` from the operator's environment, as the
   * SDKs read OPENAI_BASE_URL: `<ID>_BASE_URL` for the catalog's providers.
   */
  base_url_env?: string;
  /** Needs no key (local servers, vLLM without --api-key). */
  keyless: boolean;
  local: boolean;
  gateway: boolean;
  /** In the built-in catalog. */
  builtin: boolean;
  /** Has a `providers.<id>` block in config, or a `models.*.provider` names it. */
  configured: boolean;
  disabled: boolean;
  models: ProviderModelConfig[];
  extra_headers?: Record<string, string>;
  extra_body?: Record<string, unknown>;
  system_prompt_prefix?: string;
  use_max_completion_tokens?: boolean;
  cache_control?: boolean;
}

export function providerEntries(
  config: Config,
  catalog: Catalog = BUILTIN_CATALOG,
): ProviderEntry[] {
  const user = config.providers ?? {};
  const named = new Set(
    [config.models?.large?.provider, config.models?.small?.provider].filter((p) => p !== undefined),
  );
  const builtin = config.options?.disable_default_providers ? {} : catalog.providers;
  const ids = [...new Set([...Object.keys(builtin), ...Object.keys(user)])];
  return ids.map((id) => {
    const base = builtin[id] ? fromCatalog(id, builtin[id]) : blank(id);
    const entry = user[id] ? overlay(base, user[id]) : base;
    entry.configured = id in user || named.has(id);
    return entry;
  });
}

function fromCatalog(id: string, p: CatalogProvider): ProviderEntry {
  return {
    id,
    name: p.name,
    type: p.type,
    base_url: p.base_url,
    api_key_env: p.api_key_env ?? undefined,
    base_url_env: `${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BASE_URL`,
    keyless: p.api_key_env === null || p.key_optional === true,
    local: p.local === true,
    gateway: p.gateway === true,
    builtin: true,
    configured: false,
    disabled: false,
    models: p.models.map((m) => ({ ...m })),
    use_max_completion_tokens: p.use_max_completion_tokens,
    cache_control: p.cache_control,
  };
}

function blank(id: string): ProviderEntry {
  return {
    id,
    name: id,
    type: "openai-compat",
    keyless: false,
    local: false,
    gateway: false,
    builtin: false,
    configured: true,
    disabled: false,
    models: [],
  };
}

function overlay(base: ProviderEntry, user: ProviderConfig): ProviderEntry {
  const out: ProviderEntry = { ...base };
  if (user.name !== undefined) out.name = user.name;
  if (user.type !== undefined) out.type = user.type;
  if (user.base_url !== undefined) out.base_url = user.base_url;
  if (user.api_key !== undefined && user.api_key !== "") out.api_key = user.api_key;
  if (user.api_key_env !== undefined) out.api_key_env = user.api_key_env;
  if (user.disable !== undefined) out.disabled = user.disable;
  if (user.system_prompt_prefix !== undefined) out.system_prompt_prefix = user.system_prompt_prefix;
  if (user.extra_headers) out.extra_headers = { ...base.extra_headers, ...user.extra_headers };
  if (user.extra_body) out.extra_body = { ...base.extra_body, ...user.extra_body };
  if (user.use_max_completion_tokens !== undefined) {
    out.use_max_completion_tokens = user.use_max_completion_tokens;
  }
  if (user.cache_control !== undefined) out.cache_control = user.cache_control;
  if (user.models) out.models = prependModels(user.models, base.models);
  return out;
}

/** `upper` first; an upper entry with a lower one's id takes the lower's fields it does not set. */
function prependModels(
  upper: ProviderModelConfig[],
  lower: ProviderModelConfig[],
): ProviderModelConfig[] {
  const used = new Set<number>();
  const out = upper.map((u) => {
    const k = lower.findIndex((l, i) => !used.has(i) && l.id === u.id);
    if (k < 0) return { ...u };
    used.add(k);
    const merged = { ...lower[k], ...u };
    if (lower[k].options && u.options) merged.options = { ...lower[k].options, ...u.options };
    return merged;
  });
  lower.forEach((l, k) => {
    if (!used.has(k)) out.push({ ...l });
  });
  return out;
}

export type KeyState =
  | { ok: true; key?: string; source: string }
  | { ok: false; denied?: string; hint: string };

/** Where this provider's key comes from, or what to set when there is none. */
export function keyOf(entry: ProviderEntry, env: (name: string) => string | undefined): KeyState {
  if (entry.api_key) {
    return { ok: true, key: entry.api_key, source: `providers.${entry.id}.api_key` };
  }
  if (entry.api_key_env) {
    let value: string | undefined;
    try {
      value = env(entry.api_key_env);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotCapable)) throw err;
      if (!entry.keyless) {
        return {
          ok: false,
          denied: entry.api_key_env,
          hint: `add --allow-env=${entry.api_key_env}`,
        };
      }
    }
    if (value) return { ok: true, key: value, source: `$${entry.api_key_env}` };
  }
  if (entry.keyless) return { ok: true, source: "none (no key needed)" };
  const where = entry.api_key_env ? `${entry.api_key_env} or ` : "";
  return { ok: false, hint: `set ${where}providers.${entry.id}.api_key` };
}

/**
 * Whether a bare model id may pick this provider on its own: it has a key, or it
 * needs none and the config mentions it (a local server nobody set up is not
 * assumed to be running).
 */
export function usableForBareIds(
  entry: ProviderEntry,
  env: (name: string) => string | undefined,
): boolean {
  if (entry.disabled || !entry.base_url) return false;
  const key = keyOf(entry, env);
  if (!key.ok) return false;
  return key.key !== undefined || entry.configured;
}
