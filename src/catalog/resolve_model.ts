/**
 * Model resolution: "large" / "small" from config, "provider/model", or a bare
 * model id that exactly one usable provider lists. A model a known provider does
 * not list passes through with conservative limits (gateways serve any name).
 * Every failure is a UsageError with a one-line reason and a hint saying what to
 * type or set.
 */
import type { Config, ProviderModelConfig, SelectedModel } from "../config/schema.ts";
import { ConfigError, SandboxError, UsageError } from "../util/errors.ts";
import { type Catalog, UNLISTED_LIMITS } from "./data.ts";
import { keyOf, providerEntries, type ProviderEntry, usableForBareIds } from "./providers.ts";
import type { ResolvedModel } from "./types.ts";
import type { Pricing } from "../domain/usage.ts";
import { closest } from "../util/similar.ts";

export interface ResolveContext {
  config: Config;
  env: (name: string) => string | undefined;
  /** Defaults to the built-in catalog. */
  catalog?: Catalog;
  /** A missing key is no error (replaying a cassette sends nothing to the provider). */
  keyOptional?: boolean;
  /** The variables a config value (dotted path) named that were unset (LoadedConfig's). */
  unsetVars?: (path: string) => string[];
}

/**
 * `ref` is "large", "small" (falls back to large), "provider/model" or a bare id.
 * The `models.large|small` settings (max_tokens, reasoning_effort, temperature …)
 * apply when `ref` names the role.
 */
export function resolveModel(ref: string, ctx: ResolveContext): ResolvedModel {
  if (ref === "large" || ref === "small") {
    const selected = ref === "small"
      ? ctx.config.models?.small ?? ctx.config.models?.large
      : ctx.config.models?.large;
    if (!selected) {
      throw new UsageError("no model selected", {
        hint:
          "pass -m provider/model or set models.large in mopac.json (`mopac models` lists them)",
      });
    }
    return resolveSelected(selected, ctx);
  }
  return resolveSelected({ model: ref }, ctx);
}

function resolveSelected(sel: SelectedModel, ctx: ResolveContext): ResolvedModel {
  const entries = providerEntries(ctx.config, ctx.catalog);
  const byId = new Map(entries.map((e) => [e.id, e]));
  if (sel.provider !== undefined) {
    const entry = byId.get(sel.provider);
    if (!entry) throw unknownProvider(sel.provider, entries, sel.model);
    return pick(entry, sel.model, sel, ctx);
  }
  const spec = sel.model.trim();
  const slash = spec.indexOf("/");
  // A bare id may itself contain a slash ("qwen/qwen3-32b" on Groq).
  const listing = entries.filter((e) => !e.disabled && e.models.some((m) => m.id === spec));
  const usable = listing.filter((e) => usableForBareIds(e, ctx.env));
  if (slash > 0 && byId.has(spec.slice(0, slash)) && slash < spec.length - 1) {
    try {
      return pick(byId.get(spec.slice(0, slash))!, spec.slice(slash + 1), sel, ctx);
    } catch (err) {
      // "openai/gpt-oss-120b" with only a Groq key: say where that id is served.
      if (!(err instanceof UsageError) || usable.length === 0) throw err;
      const elsewhere = usable.map((e) => `${e.id}/${spec}`).join(" or ");
      throw new UsageError(err.message, { hint: `${err.hint}; or did you mean ${elsewhere}?` });
    }
  }
  if (usable.length === 1) return pick(usable[0], spec, sel, ctx);
  if (usable.length > 1) {
    throw new UsageError(
      `model "${spec}" is ambiguous: ${usable.map((e) => `${e.id}/${spec}`).join(", ")}`,
      { hint: "write provider/model to choose one" },
    );
  }
  if (listing.length > 0) {
    const hints = listing.map((e) => {
      const key = keyOf(e, ctx.env);
      return key.ok ? `pass -m ${e.id}/${spec}` : `${key.hint} (${e.id})`;
    });
    throw new UsageError(`no usable provider for model "${spec}"`, { hint: hints.join("; ") });
  }
  if (slash > 0) throw unknownProvider(spec.slice(0, slash), entries, spec);
  const near = closest(spec, entries.flatMap((e) => e.models.map((m) => m.id)));
  const refs = entries.flatMap((e) =>
    e.disabled ? [] : e.models.filter((m) => near.includes(m.id)).map((m) => `${e.id}/${m.id}`)
  );
  throw new UsageError(`unknown model "${spec}"`, {
    hint: (refs.length > 0 ? `did you mean ${quoted(refs.slice(0, 5))}? ` : "") +
      `write provider/model for a model the catalog does not list (e.g. litellm/${spec}); ` +
      "`mopac models` lists the known ones",
  });
}

function unknownProvider(id: string, entries: ProviderEntry[], model: string): UsageError {
  const near = closest(id, entries.map((e) => e.id));
  const known = entries.map((e) => e.id).join(", ");
  return new UsageError(`unknown provider "${id}" in "${model}"`, {
    hint: (near.length > 0 ? `did you mean ${quoted(near)}? ` : "") +
      `known providers: ${known}; add others under "providers" in mopac.json`,
  });
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(" or ");

/** Provider types that route to other providers' models: any id may be served. */
const GATEWAY_TYPES = new Set(["litellm", "openrouter"]);

/**
 * Whether the provider's model list is the whole of what it serves: one the operator
 * defined (not the built-in catalog, whose lists fall behind the providers'), with
 * models listed, that is not a gateway. An id it does not list would only get a 404.
 */
export function listsAllModels(entry: ProviderEntry): boolean {
  return !entry.builtin && !entry.gateway && !GATEWAY_TYPES.has(entry.type) &&
    entry.models.length > 0;
}

/** An id a provider with a closed list does not have: exit 2 now, with the closest ids. */
function notListed(entry: ProviderEntry, modelId: string): UsageError {
  const ids = entry.models.map((m) => m.id);
  const near = closest(modelId, ids);
  const guess = near.length > 0
    ? `did you mean ${quoted(near.map((m) => `${entry.id}/${m}`))}? `
    : "";
  return new UsageError(
    `provider "${entry.id}" has no model "${modelId}"; it lists ${ids.slice(0, 8).join(", ")}` +
      (ids.length > 8 ? ` and ${ids.length - 8} more` : ""),
    {
      hint: `${guess}add it to providers.${entry.id}.models, or give the provider ` +
        `type "litellm" if it serves models it does not list`,
    },
  );
}

function pick(
  entry: ProviderEntry,
  modelId: string,
  sel: SelectedModel,
  ctx: ResolveContext,
): ResolvedModel {
  if (entry.disabled) {
    throw new UsageError(`provider "${entry.id}" is disabled in config`, {
      hint: `remove providers.${entry.id}.disable or choose another provider`,
    });
  }
  if (!entry.base_url) {
    throw new ConfigError(`providers.${entry.id}.base_url is not set`, {
      hint: "a provider that is not in the built-in catalog needs its OpenAI-compatible base_url",
    });
  }
  let key = keyOf(entry, ctx.env);
  if (!key.ok && ctx.keyOptional) key = { ok: true, source: "(not needed: replaying)" };
  if (!key.ok) {
    if (key.denied) {
      throw new SandboxError(
        `cannot read $${key.denied}, the API key of provider "${entry.id}"`,
        `--allow-env=${key.denied}`,
      );
    }
    // `"api_key": "$LITELLM_KEY"` with the variable unset: say which variable.
    const path = `providers.${entry.id}.api_key`;
    const [unset] = ctx.unsetVars?.(path) ?? [];
    if (unset) {
      throw new UsageError(
        `no API key for provider "${entry.id}": ${path} is $${unset}, which is not set`,
        { hint: `set ${unset} in the environment, or ${path} in config` },
      );
    }
    throw new UsageError(`no API key for provider "${entry.id}"`, { hint: key.hint });
  }
  const fromEnv = ctx.keyOptional ? undefined : baseUrlFromEnv(entry, ctx.env);
  if (fromEnv) entry = { ...entry, base_url: fromEnv };
  const model = entry.models.find((m) => m.id === modelId);
  if (!model && listsAllModels(entry)) throw notListed(entry, modelId);
  const built = build(entry, modelId, model, sel, key);
  if (entry.base_url_env && !ctx.keyOptional) built.base_url_env = entry.base_url_env;
  return built;
}

/**
 * `<ID>_BASE_URL` from the environment: the operator's, so it wins over config files.
 * A variable Deno hides is no reason to talk to another host quietly: exit 2.
 */
function baseUrlFromEnv(
  entry: ProviderEntry,
  env: (name: string) => string | undefined,
): string | undefined {
  const name = entry.base_url_env;
  if (!name) return undefined;
  let value: string | undefined;
  try {
    value = env(name)?.trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
    throw new SandboxError(
      `cannot read $${name}, which sets the base URL of provider "${entry.id}"`,
      `--allow-env=${name}`,
    );
  }
  if (!value) return undefined;
  if (!/^https?:\/\/[^/]/.test(value) || !URL.canParse(value)) {
    throw new ConfigError(`$${name} is not an http(s) URL: ${JSON.stringify(value)}`, {
      hint: `set it to the provider's OpenAI-compatible base URL, e.g. http://localhost:4000/v1`,
    });
  }
  return value;
}

function build(
  entry: ProviderEntry,
  modelId: string,
  model: ProviderModelConfig | undefined,
  sel: SelectedModel,
  key: { key?: string; source: string },
): ResolvedModel {
  const canReason = model?.can_reason ?? false;
  const out: ResolvedModel = {
    provider_id: entry.id,
    model_id: modelId,
    name: model?.name ?? modelId,
    base_url: entry.base_url!,
    api_key_source: key.source,
    context_window: model?.context_window ?? UNLISTED_LIMITS.context_window,
    default_max_tokens: sel.max_tokens ?? model?.default_max_tokens ??
      UNLISTED_LIMITS.default_max_tokens,
    pricing: pricingOf(model),
    priced: model?.cost_per_1m_in !== undefined || model?.cost_per_1m_out !== undefined,
    can_reason: canReason,
    supports_attachments: model?.supports_attachments ?? false,
    unlisted: model === undefined,
  };
  const optional: Partial<ResolvedModel> = {
    api_key: key.key,
    use_max_completion_tokens: model?.use_max_completion_tokens ?? entry.use_max_completion_tokens,
    reasoning_effort: sel.reasoning_effort ??
      (canReason ? model?.default_reasoning_effort : undefined),
    extra_headers: entry.extra_headers,
    extra_body: entry.extra_body,
    system_prompt_prefix: entry.system_prompt_prefix,
    temperature: sel.temperature ?? model?.options?.temperature,
    top_p: sel.top_p ?? model?.options?.top_p,
    cache_control: model?.cache_control ?? entry.cache_control,
    supports_parallel_tool_calls: model?.supports_parallel_tool_calls,
  };
  for (const [k, v] of Object.entries(optional)) {
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** Catalog prices; cached input costs the full input price when no cached price is known. */
export function pricingOf(model: ProviderModelConfig | undefined): Pricing {
  const input = model?.cost_per_1m_in ?? 0;
  const pricing: Pricing = {
    input,
    output: model?.cost_per_1m_out ?? 0,
    cached_input: model?.cost_per_1m_out_cached ?? input,
  };
  if (model?.cost_per_1m_in_cached !== undefined) pricing.cache_write = model.cost_per_1m_in_cached;
  return pricing;
}
