/**
 * mopac's own blocks: agent profiles ("verticals") and default limits. This file
 * only fixes their shape; what they mean is src/permission's job.
 */
import * as z from "zod";
import { durationSchema, networkSchema } from "./schema_runtime.ts";
import { madeOnce } from "../util/load_once.ts";

const patterns = () => z.array(z.string());

const limitFields = () => ({
  max_turns: z.int().positive().optional().describe("Model requests per run"),
  max_tokens: z.int().positive().optional().describe("Input plus output tokens per run"),
  max_cost: z.number().nonnegative().optional().describe("USD per run"),
  timeout: durationSchema().optional().describe('Wall time per run (seconds or "10m")'),
});

/** Made at first use, like every block a config may leave out (schema.ts). */
export const limitsSchema = madeOnce(() => z.strictObject(limitFields()));

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
      allow: patterns().optional(),
      deny: patterns().optional(),
      network: networkSchema().optional(),
    }).optional(),
    paths: z.strictObject({
      read: patterns().optional(),
      write: patterns().optional(),
      deny: patterns().optional(),
    }).optional(),
    fetch: z.strictObject({ hosts: patterns().optional() }).optional(),
    flag_allow: patterns().optional().describe(
      "Rules --allow may add for one run: TOOL, bash:PATTERN, fetch:HOST",
    ),
    ...limitFields(),
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
export type LimitsConfig = z.output<ReturnType<typeof limitsSchema>>;
