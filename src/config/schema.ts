/**
 * The whole config file: crush's schema as the base plus mopac's `agents` and
 * `limits`. Every object is strict, so a misspelt key is an error with its
 * location instead of a setting that silently does nothing; `lsp` (and crush's
 * `recent_models`) are accepted and ignored.
 *
 * An MCP server's and a profile's schemas are made when a config first has one
 * (`z.lazy` as a record's values): building zod schemas is slow (~20 µs a node),
 * and a config without them skips ~5 ms. A lazy block directly under `.optional()`
 * would be made anyway: zod's optional reads its inner schema's `optin` at parse.
 */
import * as z from "zod";
import { ModelsSchema, ProviderConfigSchema } from "./schema_providers.ts";
import {
  HooksSchema,
  mcpServerSchema,
  OptionsSchema,
  PermissionsSchema,
  ToolsSchema,
} from "./schema_runtime.ts";
import { agentSchema, LimitsSchema } from "./schema_agents.ts";

export const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  models: ModelsSchema.optional(),
  providers: z.record(z.string(), ProviderConfigSchema).optional(),
  mcp: z.record(z.string(), z.lazy(mcpServerSchema)).optional(),
  options: OptionsSchema.optional(),
  permissions: PermissionsSchema.optional(),
  tools: ToolsSchema.optional(),
  hooks: HooksSchema.optional(),
  env: z.record(z.string(), z.string()).optional().describe("Environment for child processes"),
  agents: z.record(z.string(), z.lazy(agentSchema)).optional().describe("mopac agent profiles"),
  limits: LimitsSchema.optional().describe("mopac default limits for every run"),
  trusted_projects: z.array(z.string()).optional().describe(
    "mopac, operator config only: projects (absolute paths or globs, matched against the git " +
      "root) whose own config files are trusted like the operator's",
  ),
  lsp: z.unknown().optional().describe("crush; accepted and ignored"),
  recent_models: z.unknown().optional().describe("crush; accepted and ignored"),
});

/** The validated config (durations in seconds, defaults filled in). */
export type Config = z.output<typeof ConfigSchema>;
/** What a config file may contain. */
export type ConfigInput = z.input<typeof ConfigSchema>;

export type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[]
  : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> }
  : T;

/** JSON Schema (draft 2020-12) of the config file, for `mopac schema` and editors. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" });
  return { ...schema, title: "mopac configuration" };
}

export type { ProviderConfig, ProviderModelConfig, SelectedModel } from "./schema_providers.ts";
export type { AgentConfig, LimitsConfig } from "./schema_agents.ts";
