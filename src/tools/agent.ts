/**
 * `agent`: hands a self-contained task to a sub-agent (a child session with the
 * `task` profile) and returns its final answer. The app supplies the runner, so
 * this tool knows nothing about sessions or models.
 */
import { z } from "zod";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";
import { defineTool } from "./define.ts";
import type { Usage } from "../domain/usage.ts";
import type { Denial } from "../domain/tool_records.ts";

export interface AgentResult {
  text: string;
  is_error: boolean;
  session_id: string;
  usage: Usage;
  cost_usd: number;
  /** Calls the gate refused inside the sub-agent; they count as the parent's denials. */
  denials: Denial[];
}

export type AgentRunner = (prompt: string, ctx: ToolContext) => Promise<AgentResult>;

const schema = z.object({
  prompt: z.string().min(1).describe(
    "The task for the sub-agent: self-contained, with every path and detail it needs, and what to report back",
  ),
});

const DESCRIPTION = `Launch a sub-agent for a self-contained research task: finding files, \
reading code, answering a question about the codebase or the web. The sub-agent can view, ls, \
glob, grep and fetch, but cannot change files or run commands. It sees none of this \
conversation, so the prompt must hold everything it needs. Several agent calls in one \
response run in parallel. Its final answer comes back as this tool's result.`;

export function createAgentTool(run: AgentRunner): Tool {
  return defineTool({
    name: "agent",
    description: DESCRIPTION,
    schema,
    async run({ prompt }, ctx): Promise<ToolOutput> {
      const result = await run(prompt, ctx);
      return {
        content: result.text || "(the sub-agent returned no text)",
        is_error: result.is_error,
        usage: result.usage,
        cost_usd: result.cost_usd,
        denials: result.denials,
      };
    },
  });
}
