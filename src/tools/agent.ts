/**
 * `agent`: hands a self-contained task to a sub-agent (a child session with the
 * `task` profile within the caller's) and returns its final answer. The app supplies the runner, so
 * this tool knows nothing about sessions or models.
 */
import * as z from "zod";
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
  /** A hook halted the sub-agent: the parent run ends too. */
  halt?: string;
}

/** Runs one sub-agent on `prompt`; `tools` names the tools a sub-agent is offered. */
export interface AgentRunner {
  (prompt: string, ctx: ToolContext): Promise<AgentResult>;
  readonly tools: readonly string[];
}

const schema = z.object({
  prompt: z.string().min(1).describe(
    "The task for the sub-agent: self-contained, with every path and detail it needs, and what to report back",
  ),
});

/** What the model is told, with the sub-agent's real tools. */
function describe(tools: readonly string[]): string {
  const has = (names: string[]) => names.some((n) => tools.includes(n));
  const web = tools.includes("fetch") ? " or the web" : "";
  const list = tools.length === 0
    ? "It has no tools"
    : `It has these tools: ${tools.slice(0, -1).join(", ")}${tools.length > 1 ? " and " : ""}${
      tools.at(-1)
    }`;
  const cannot = [
    has(["edit", "multiedit", "write"]) ? "" : "change files",
    has(["bash"]) ? "" : "run commands",
  ].filter((c) => c).join(" or ");
  return `Launch a sub-agent for a self-contained task: finding files, reading code, answering a \
question about the codebase${web}. ${list}${cannot ? `; it cannot ${cannot}` : ""}. It sees none \
of this conversation, so the prompt must hold everything it needs. Several agent calls in one \
response run in parallel. Its final answer comes back as this tool's result.`;
}

export function createAgentTool(run: AgentRunner): Tool {
  return defineTool({
    name: "agent",
    description: describe(run.tools),
    schema,
    async run({ prompt }, ctx): Promise<ToolOutput> {
      const result = await run(prompt, ctx);
      return {
        content: result.text || "(the sub-agent returned no text)",
        is_error: result.is_error,
        usage: result.usage,
        cost_usd: result.cost_usd,
        denials: result.denials,
        ...(result.halt !== undefined ? { halt: result.halt } : {}),
      };
    },
  });
}
