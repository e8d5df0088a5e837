import assert from "node:assert/strict";
import { type ConfigInput, ConfigSchema } from "../../src/config/mod.ts";
import { resolveModel } from "../../src/catalog/mod.ts";
import { SandboxError, UsageError } from "../../src/util/errors.ts";

function ctx(vars: Record<string, string> = {}, config: ConfigInput = {}) {
  return { config: ConfigSchema.parse(config), env: (n: string) => vars[n] };
}

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${err}`);
    return err;
  }
  assert.fail("expected a UsageError");
}

Deno.test("provider/model resolves a listed model with catalog facts and the env key", () => {
  const m = resolveModel("openai/gpt-5", ctx({ OPENAI_API_KEY: "sk-test" }));
  assert.deepEqual(m, {
    provider_id: "openai",
    model_id: "gpt-5",
    name: "GPT-5",
    base_url: "https://api.openai.com/v1",
    base_url_env: "OPENAI_BASE_URL",
    api_key: "sk-test",
    api_key_source: "$OPENAI_API_KEY",
    context_window: 400000,
    default_max_tokens: 128000,
    pricing: { input: 1.25, output: 10, cached_input: 0.125 },
    priced: true,
    can_reason: true,
    supports_attachments: true,
    unlisted: false,
    use_max_completion_tokens: true,
    reasoning_effort: "medium",
  });
});

Deno.test("a model a known provider does not list passes through with conservative limits", () => {
  const m = resolveModel("litellm/team-model-v2", ctx({ LITELLM_API_KEY: "k" }));
  assert.equal(m.base_url, "http://localhost:4000/v1");
  assert.equal(m.model_id, "team-model-v2");
  assert.equal(m.unlisted, true);
  assert.equal(m.context_window, 32768);
  assert.equal(m.default_max_tokens, 4096);
  assert.deepEqual(m.pricing, { input: 0, output: 0, cached_input: 0 });
  assert.equal(m.priced, false);
  // The rest after the first slash is the model id, slashes and all.
  assert.equal(
    resolveModel("openrouter/anthropic/claude-sonnet-4.5", ctx({ OPENROUTER_API_KEY: "k" }))
      .cache_control,
    true,
  );
});

Deno.test("an unknown provider is a usage error listing the known ones", () => {
  const err = usageError(() => resolveModel("nope/some-model", ctx({})));
  assert.match(err.message, /unknown provider "nope"/);
  assert.match(err.hint ?? "", /known providers: .*litellm.*openai/);
});

Deno.test("a bare id resolves when exactly one usable provider lists it, slashes included", () => {
  const env = { ANTHROPIC_API_KEY: "a", GROQ_API_KEY: "g" };
  assert.equal(resolveModel("claude-haiku-4-5-20251001", ctx(env)).provider_id, "anthropic");
  const qwen = resolveModel("qwen/qwen3-32b", ctx(env));
  assert.equal(qwen.provider_id, "groq");
  assert.equal(qwen.model_id, "qwen/qwen3-32b");
});

Deno.test("a bare id two usable providers list is ambiguous; the error lists provider/model", () => {
  const err = usageError(() =>
    resolveModel("gpt-5", ctx({ OPENAI_API_KEY: "o", LITELLM_API_KEY: "l" }))
  );
  assert.match(err.message, /model "gpt-5" is ambiguous: litellm\/gpt-5, openai\/gpt-5/);
  assert.match(err.hint ?? "", /provider\/model/);
});

Deno.test("no usable provider: the error says which variable or config key to set", () => {
  let err = usageError(() => resolveModel("gpt-5", ctx({})));
  assert.match(err.message, /no usable provider for model "gpt-5"/);
  assert.match(err.hint ?? "", /set OPENAI_API_KEY or providers\.openai\.api_key \(openai\)/);
  assert.match(err.hint ?? "", /set LITELLM_API_KEY or providers\.litellm\.api_key \(litellm\)/);
  err = usageError(() => resolveModel("openai/gpt-5", ctx({})));
  assert.equal(err.message, 'no API key for provider "openai"');
  assert.equal(err.hint, "set OPENAI_API_KEY or providers.openai.api_key");
});

Deno.test("an id another usable provider serves is suggested when its prefix has no key", () => {
  const err = usageError(() => resolveModel("openai/gpt-oss-120b", ctx({ GROQ_API_KEY: "g" })));
  assert.match(err.hint ?? "", /did you mean groq\/openai\/gpt-oss-120b\?/);
});

Deno.test("keyless local servers: usable when chosen explicitly or configured", () => {
  const explicit = resolveModel("ollama/qwen3", ctx({}));
  assert.equal(explicit.base_url, "http://localhost:11434/v1");
  assert.equal(explicit.api_key, undefined);
  assert.equal(explicit.unlisted, false);
  const err = usageError(() => resolveModel("qwen3", ctx({})));
  assert.match(err.hint ?? "", /pass -m ollama\/qwen3/);
  const configured = resolveModel("qwen3", ctx({}, { providers: { ollama: {} } }));
  assert.equal(configured.provider_id, "ollama");
  // vLLM takes a key when one is set, and none otherwise.
  assert.equal(resolveModel("vllm/my-model", ctx({})).api_key, undefined);
  assert.equal(resolveModel("vllm/my-model", ctx({ VLLM_API_KEY: "v" })).api_key, "v");
});

Deno.test("the default model is models.large; small falls back to large; role settings apply", () => {
  const err = usageError(() => resolveModel("large", ctx({ OPENAI_API_KEY: "k" })));
  assert.equal(err.message, "no model selected");
  assert.match(err.hint ?? "", /pass -m provider\/model or set models\.large/);

  const config: ConfigInput = {
    models: {
      large: {
        provider: "openai",
        model: "gpt-5",
        max_tokens: 1000,
        temperature: 0.2,
        reasoning_effort: "high",
      },
    },
  };
  const large = resolveModel("large", ctx({ OPENAI_API_KEY: "k" }, config));
  assert.equal(large.default_max_tokens, 1000);
  assert.equal(large.temperature, 0.2);
  assert.equal(large.reasoning_effort, "high");
  assert.equal(resolveModel("small", ctx({ OPENAI_API_KEY: "k" }, config)).model_id, "gpt-5");
  config.models!.small = { model: "gpt-5-nano" };
  const small = resolveModel("small", ctx({ OPENAI_API_KEY: "k" }, config));
  assert.equal(small.model_id, "gpt-5-nano");
  assert.equal(small.default_max_tokens, 128000, "large's settings do not leak into small");
});

Deno.test("a key in config wins and is named as its source", () => {
  const m = resolveModel(
    "openai/gpt-4o",
    ctx({ OPENAI_API_KEY: "env-key" }, {
      providers: { openai: { api_key: "config-key" } },
    }),
  );
  assert.equal(m.api_key, "config-key");
  assert.equal(m.api_key_source, "providers.openai.api_key");
});

Deno.test("a disabled provider and an unknown bare id are usage errors", () => {
  const env = { OPENAI_API_KEY: "k" };
  const off = usageError(() =>
    resolveModel("openai/gpt-5", ctx(env, { providers: { openai: { disable: true } } }))
  );
  assert.match(off.message, /provider "openai" is disabled/);
  const unknown = usageError(() => resolveModel("no-such-model-anywhere", ctx(env)));
  assert.match(unknown.message, /unknown model "no-such-model-anywhere"/);
  assert.match(unknown.hint ?? "", /litellm\/no-such-model-anywhere/);
});

Deno.test("an API key variable the sandbox hides names --allow-env", () => {
  const env = (name: string) => {
    throw new Deno.errors.NotCapable(`Requires env access to "${name}"`);
  };
  try {
    resolveModel("openai/gpt-5", { config: ConfigSchema.parse({}), env });
    assert.fail("expected an error");
  } catch (err) {
    assert.ok(err instanceof SandboxError);
    assert.equal(err.flag, "--allow-env=OPENAI_API_KEY");
  }
  // Keyless servers do not need a key variable at all (their base URL variable is read).
  const onlyKeysHidden = (name: string) => {
    if (name.endsWith("_API_KEY")) throw new Deno.errors.NotCapable(`Requires env access`);
    return undefined;
  };
  const vllm = resolveModel("vllm/m", { config: ConfigSchema.parse({}), env: onlyKeysHidden });
  assert.equal(vllm.api_key, undefined);
});

Deno.test("<ID>_BASE_URL from the environment sets a catalog provider's base URL, over config", () => {
  const vars = { LITELLM_API_KEY: "k", LITELLM_BASE_URL: "http://litellm.internal:4000/v1" };
  const config = { providers: { litellm: { base_url: "http://from-config:4000/v1" } } };
  const m = resolveModel("litellm/gpt-4.1", ctx(vars, config));
  assert.equal(m.base_url, "http://litellm.internal:4000/v1");
  assert.equal(m.base_url_env, "LITELLM_BASE_URL");
  // Unset: config's, else the catalog's.
  assert.equal(
    resolveModel("litellm/gpt-4.1", ctx({ LITELLM_API_KEY: "k" }, config)).base_url,
    "http://from-config:4000/v1",
  );
  assert.throws(
    () => resolveModel("litellm/gpt-4.1", ctx({ ...vars, LITELLM_BASE_URL: "litellm:4000" })),
    /\$LITELLM_BASE_URL is not an http\(s\) URL/,
  );
  const hidden = (n: string) => {
    if (n === "OPENAI_BASE_URL") throw new Deno.errors.NotCapable("Requires env access");
    return n === "OPENAI_API_KEY" ? "sk" : undefined;
  };
  assert.throws(
    () => resolveModel("openai/gpt-4.1", { config: ConfigSchema.parse({}), env: hidden }),
    (err: Error) => err instanceof SandboxError && err.flag === "--allow-env=OPENAI_BASE_URL",
  );
});
