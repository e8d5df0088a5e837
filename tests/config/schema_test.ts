import assert from "node:assert/strict";
import { configJsonSchema, ConfigSchema } from "../../src/config/mod.ts";

Deno.test("the design's example config validates", () => {
  const config = ConfigSchema.parse({
    $schema: "./schema.json",
    models: {
      large: { provider: "litellm", model: "claude-sonnet-4-5", max_tokens: 16000 },
      small: { model: "openai/gpt-5-mini" },
    },
    providers: {
      litellm: { base_url: "http://litellm.internal:4000/v1", api_key: "sk-x" },
    },
    mcp: {
      local: { type: "stdio", command: "npx", args: ["-y", "pkg"], env: { K: "V" } },
      remote: { type: "http", url: "http://h/mcp", headers: { Authorization: "Bearer t" } },
      legacy: { type: "sse", url: "https://h/sse", required: true, timeout: 30 },
      inferred: { url: "https://h/mcp", enabled_tools: ["a"], disabled_tools: ["b"] },
    },
    options: { data_directory: ".state", default_agent: "fixer", request_timeout: 120 },
    permissions: { allowed_tools: ["view", "bash"] },
    tools: { ls: { max_depth: 3, max_items: 500 }, grep: { timeout: "5s" } },
    hooks: { PreToolUse: [{ matcher: "^bash$", command: "./hooks/check.sh", timeout: 5 }] },
    env: { CI: "1" },
    agents: {
      fixer: {
        model: "large",
        allowed_tools: ["view", "ls", "grep", "glob", "edit", "bash"],
        allowed_mcp: { github: ["get_issue", "list_*"] },
        bash: { allow: ["npm test", "npm run lint*", "git diff*"], deny: ["git push*"] },
        paths: { write: ["src/**", "tests/**"], deny: [".env", "**/*.pem"] },
        fetch: { hosts: ["docs.deno.com"] },
        max_turns: 40,
        max_cost: 1.0,
        timeout: "10m",
      },
    },
    limits: { max_turns: 100, max_tokens: 2_000_000, max_cost: 5, timeout: 3600 },
  });
  assert.equal(config.mcp?.local.timeout, 10);
  assert.equal(config.mcp?.legacy.timeout, 30);
  assert.equal(config.hooks?.PreToolUse?.[0].timeout, 5);
  assert.equal(config.tools?.grep?.timeout, 5);
  assert.equal(config.agents?.fixer.timeout, 600);
});

Deno.test("the JSON Schema describes every top-level key and rejects others", () => {
  const schema = configJsonSchema() as {
    type: string;
    additionalProperties: boolean;
    properties: Record<
      string,
      { properties?: Record<string, unknown>; additionalProperties?: unknown }
    >;
  };
  assert.equal(schema.type, "object");
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    "$schema",
    "agents",
    "env",
    "hooks",
    "limits",
    "lsp",
    "mcp",
    "models",
    "options",
    "permissions",
    "providers",
    "recent_models",
    "tools",
    "trusted_projects",
  ]);
  const mcp = schema.properties.mcp.additionalProperties as {
    properties: Record<string, { default?: unknown }>;
  };
  assert.equal(mcp.properties.timeout.default, 10);
  assert.ok("required" in mcp.properties);
  const timeout =
    (schema.properties.limits.properties as Record<string, { anyOf?: unknown[] }>).timeout;
  assert.equal(timeout.anyOf?.length, 2, "a duration is a number or a string");
  JSON.stringify(schema); // serialisable for `mopac schema`
});
