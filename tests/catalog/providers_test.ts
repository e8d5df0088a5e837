import assert from "node:assert/strict";
import { type ConfigInput, ConfigSchema } from "../../src/config/mod.ts";
import { listModels, listProviders, providerEntries, resolveModel } from "../../src/catalog/mod.ts";
import { ConfigError, UsageError } from "../../src/util/errors.ts";

function ctx(vars: Record<string, string>, config: ConfigInput) {
  return { config: ConfigSchema.parse(config), env: (n: string) => vars[n] };
}

Deno.test("user providers merge over the catalog: fields override, models prepend and win by id", () => {
  const c = ctx({ OPENAI_API_KEY: "k" }, {
    providers: {
      openai: {
        base_url: "https://gateway.corp/openai/v1",
        extra_headers: { "X-Team": "infra" },
        models: [
          { id: "gpt-5", default_max_tokens: 1000 },
          {
            id: "ft:gpt-4o:corp",
            name: "Fine-tuned",
            context_window: 128000,
            cost_per_1m_in: 3.75,
          },
        ],
      },
    },
  });
  const openai = providerEntries(c.config).find((e) => e.id === "openai")!;
  assert.deepEqual(openai.models.slice(0, 3).map((m) => m.id), [
    "gpt-5",
    "ft:gpt-4o:corp",
    "gpt-5.1",
  ]);
  assert.equal(openai.models.filter((m) => m.id === "gpt-5").length, 1);

  const gpt5 = resolveModel("openai/gpt-5", c);
  assert.equal(gpt5.base_url, "https://gateway.corp/openai/v1");
  assert.deepEqual(gpt5.extra_headers, { "X-Team": "infra" });
  assert.equal(gpt5.default_max_tokens, 1000, "the user's field wins");
  assert.equal(gpt5.context_window, 400000, "the catalog fills what the user left out");
  assert.equal(gpt5.pricing.input, 1.25);

  const ft = resolveModel("ft:gpt-4o:corp", c);
  assert.equal(ft.provider_id, "openai");
  assert.equal(ft.unlisted, false);
  assert.equal(ft.name, "Fine-tuned");
  assert.deepEqual(ft.pricing, { input: 3.75, output: 0, cached_input: 3.75 });
});

Deno.test("a provider only the config defines works with its own base_url and models", () => {
  const c = ctx({ CORP_KEY: "ck" }, {
    providers: {
      corp: {
        name: "Corp gateway",
        base_url: "http://llm.corp:8080/v1",
        api_key_env: "CORP_KEY",
        system_prompt_prefix: "You work for Corp.",
        extra_body: { metadata: { team: "x" } },
        models: [{ id: "corp-coder", context_window: 64000, default_max_tokens: 8000 }],
      },
    },
  });
  const m = resolveModel("corp-coder", c);
  assert.equal(m.provider_id, "corp");
  assert.equal(m.api_key, "ck");
  assert.equal(m.api_key_source, "$CORP_KEY");
  assert.equal(m.system_prompt_prefix, "You work for Corp.");
  assert.deepEqual(m.extra_body, { metadata: { team: "x" } });

  const noUrl = ctx({}, { providers: { bare: { api_key: "x" } } });
  assert.throws(
    () => resolveModel("bare/m", noUrl),
    (e) => e instanceof ConfigError && /base_url/.test(e.message),
  );
});

Deno.test("disable_default_providers hides the catalog", () => {
  const c = ctx({ OPENAI_API_KEY: "k" }, {
    options: { disable_default_providers: true },
    providers: {
      mine: { base_url: "http://127.0.0.1:9/v1", api_key: "x", models: [{ id: "gpt-5" }] },
    },
  });
  assert.deepEqual(providerEntries(c.config).map((e) => e.id), ["mine"]);
  assert.throws(
    () => resolveModel("openai/gpt-5", c),
    (e) => e instanceof UsageError && /unknown provider "openai"/.test(e.message),
  );
  const m = resolveModel("gpt-5", c);
  assert.equal(m.provider_id, "mine");
  assert.equal(m.context_window, 32768, "no catalog facts to fall back on");
  assert.deepEqual(listProviders(c).map((p) => p.id), ["mine"]);
});

Deno.test("listings say what is usable and why not, and never print a key", () => {
  const c = ctx({ OPENAI_API_KEY: "sk-very-secret" }, {
    providers: { ollama: {}, groq: { disable: true } },
  });
  const providers = new Map(listProviders(c).map((p) => [p.id, p]));
  assert.equal(providers.get("openai")?.usable, true);
  assert.equal(providers.get("openai")?.status, "key from $OPENAI_API_KEY");
  assert.equal(providers.get("anthropic")?.usable, false);
  assert.equal(
    providers.get("anthropic")?.status,
    "set ANTHROPIC_API_KEY or providers.anthropic.api_key",
  );
  assert.equal(providers.get("ollama")?.usable, true, "configured local server");
  assert.equal(providers.get("lmstudio")?.usable, false);
  assert.match(providers.get("lmstudio")?.status ?? "", /-m lmstudio\/<model>/);
  assert.equal(providers.get("groq")?.disabled, true);

  const models = listModels(c);
  assert.ok(
    models.some((m) => m.ref === "openai/gpt-5" && m.usable && m.pricing.cached_input === 0.125),
  );
  assert.ok(!models.some((m) => m.provider_id === "groq"), "disabled providers are not listed");
  const sorted = [...models].sort((a, b) =>
    a.provider_id.localeCompare(b.provider_id) || a.model_id.localeCompare(b.model_id)
  );
  assert.deepEqual(models, sorted);
  assert.ok(
    !JSON.stringify({ models, providers: [...providers.values()] }).includes("sk-very-secret"),
  );
});
