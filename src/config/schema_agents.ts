/**
 * mopac's own blocks: agent profiles ("verticals") and default limits. This file
 * only fixes their shape; what they mean is src/permission's job.
 */
import * as z from "zod";
import { DurationSchema, NetworkSchema } from "./schema_runtime.ts";
import { madeOnce } from "../util/load_once.ts";

const Patterns = z.array(z.string());

const LimitFields = {
  max_turns: z.int().positive().optional().describe("Model requests per run"),
  max_tokens: z.int().positive().optional().describe("Input plus output tokens per run"),
  max_cost: z.number().nonnegative().optional().describe("USD per run"),
  timeout: DurationSchema.optional().describe('Wall time per run (seconds or "10m")'),
};

export const LimitsSchema = z.strictObject(LimitFields);

/** Made at first use: a config that defines no profile never needs it (schema.ts). */
export const agentSchema = madeOnce(() =>
  z.strictObject({
    description: z.string().optional(),
    model: z.string().optional().describe('"large" (default), "small" or "provider/model"'),
    prompt: z.string().optional().describe("Extra system prompt text"),
    prompt_file: z.string().optional().describe("File with extra system prompt text"),
    allowed_tools: z.array(z.string()).optional().describe("Built-in tools this profile may use"),
    allowed_mcp: z
      .record(z.string(), z.union([z.array(z.string()), z.literal(true)]))
      .optional()
      .describe("MCP server → tool names or globs, or true for every tool"),
    bash: z.strictObject({
      allow: Patterns.optional(),
      deny: Patterns.optional(),
      network: NetworkSchema.optional(),
    }).optional(),
    paths: z.strictObject({
      read: Patterns.optional(),
      write: Patterns.optional(),
      deny: Patterns.optional(),
    }).optional(),
    fetch: z.strictObject({ hosts: Patterns.optional() }).optional(),
    flag_allow: Patterns.optional().describe(
      "Rules --allow may add for one run: TOOL, bash:PATTERN, fetch:HOST",
    ),
    ...LimitFields,
  })
    .superRefine((agent, ctx) => {
      if (agent.prompt !== undefined && agent.prompt_file !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["prompt_file"],
          message: "set either prompt or prompt_file, not both",
        });
      }
    })
);

export type AgentConfig = z.output<ReturnType<typeof agentSchema>>;
export type LimitsConfig = z.output<typeof LimitsSchema>;
