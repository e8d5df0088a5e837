/** Sanity of catalog.json itself: every fact present and plausible, every key one the config knows. */
import assert from "node:assert/strict";
import { BUILTIN_CATALOG } from "../../src/catalog/mod.ts";
import { ProviderModelSchema } from "../../src/config/schema_providers.ts";

const REQUIRED = [
  "litellm",
  "openai",
  "openrouter",
  "anthropic",
  "gemini",
  "deepseek",
  "groq",
  "mistral",
  "xai",
  "together",
  "fireworks",
  "cerebras",
  "ollama",
  "lmstudio",
  "vllm",
];

const PROVIDER_KEYS = new Set([
  "name",
  "type",
  "base_url",
  "api_key_env",
  "key_optional",
  "local",
  "gateway",
  "use_max_completion_tokens",
  "cache_control",
  "models",
  "_note",
]);

Deno.test("catalog.json has every required provider with a base URL and key variable", async () => {
  const raw = JSON.parse(await Deno.readTextFile(new URL("../../catalog.json", import.meta.url)));
  assert.equal(typeof raw._source, "string");
  for (const id of REQUIRED) assert.ok(BUILTIN_CATALOG.providers[id], `missing provider ${id}`);
  for (const [id, p] of Object.entries(BUILTIN_CATALOG.providers)) {
    for (const key of Object.keys(p)) {
      assert.ok(PROVIDER_KEYS.has(key), `${id}: unknown key ${key}`);
    }
    const url = new URL(p.base_url);
    assert.match(url.protocol, /^https?:$/, id);
    assert.ok(p.name.length > 0, id);
    if (p.api_key_env === null) assert.ok(p.local, `${id}: only local servers go without a key`);
    else assert.match(p.api_key_env, /^[A-Z][A-Z0-9_]*_API_KEY$/, id);
    if (url.hostname !== "localhost") {
      assert.equal(url.protocol, "https:", `${id}: remote APIs use https`);
    }
  }
  assert.equal(BUILTIN_CATALOG.providers.litellm.base_url, "http://localhost:4000/v1");
  assert.equal(BUILTIN_CATALOG.providers.litellm.api_key_env, "LITELLM_API_KEY");
  assert.equal(BUILTIN_CATALOG.providers.ollama.base_url, "http://localhost:11434/v1");
  assert.equal(BUILTIN_CATALOG.providers.lmstudio.base_url, "http://localhost:1234/v1");
  assert.equal(BUILTIN_CATALOG.providers.vllm.base_url, "http://localhost:8000/v1");
});

Deno.test("every catalog model has positive limits and non-negative prices", () => {
  let count = 0;
  for (const [id, p] of Object.entries(BUILTIN_CATALOG.providers)) {
    const ids = new Set<string>();
    for (const raw of p.models) {
      const m = ProviderModelSchema.parse(raw); // strict: a misspelt key fails here
      const where = `${id}/${m.id}`;
      assert.ok(!ids.has(m.id), `${where} listed twice`);
      ids.add(m.id);
      assert.ok(m.name, `${where}: name`);
      assert.ok(
        Number.isInteger(m.context_window) && m.context_window! > 0,
        `${where}: context_window`,
      );
      assert.ok(
        m.default_max_tokens! > 0 && m.default_max_tokens! <= m.context_window!,
        `${where}: max tokens`,
      );
      for (const price of [m.cost_per_1m_in, m.cost_per_1m_out]) {
        assert.ok(typeof price === "number" && price >= 0, `${where}: price`);
      }
      if (m.cost_per_1m_out_cached !== undefined) {
        assert.ok(
          m.cost_per_1m_out_cached <= m.cost_per_1m_in!,
          `${where}: cached input costs less`,
        );
      }
      assert.equal(typeof m.can_reason, "boolean", `${where}: can_reason`);
      assert.equal(typeof m.supports_attachments, "boolean", `${where}: supports_attachments`);
      if (!p.local) assert.ok(m.cost_per_1m_out! > 0, `${where}: a hosted model is not free`);
      count++;
    }
  }
  assert.ok(count >= 50, `only ${count} models`);
});
