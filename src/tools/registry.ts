/**
 * The one list of built-in tools. Each entry is a factory; the gate decides which
 * of them a run offers. MCP tools are added beside these by the app.
 */
import type { Tool } from "./types.ts";
import { createBashTool } from "./bash.ts";
import { createJobOutputTool } from "./job_output.ts";
import { createJobKillTool } from "./job_kill.ts";
import { JobManager } from "./shell/jobs.ts";
import { createViewTool } from "./view.ts";
import { createEditTool } from "./edit.ts";
import { createMultiEditTool } from "./multiedit.ts";
import { createWriteTool } from "./write.ts";
import { createLsTool } from "./ls.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep.ts";
import { createFetchTool } from "./fetch.ts";
import { createTodosTool } from "./todos.ts";
import { type AgentRunner, createAgentTool } from "./agent.ts";

/** Config `tools` block, already validated (durations in seconds). */
export interface ToolSettings {
  ls?: { max_depth?: number; max_items?: number };
  grep?: { timeout?: number };
  bash?: { timeout?: number; background_after?: number };
  fetch?: { timeout?: number };
}

export interface BuiltinTools {
  tools: Tool[];
  /** Ends background jobs; call on exit. */
  dispose(): Promise<void>;
}

export function builtinTools(
  settings: ToolSettings = {},
  opts: { runAgent?: AgentRunner; ripgrep?: string | false } = {},
): BuiltinTools {
  const jobs = new JobManager();
  const seconds = (s?: number) => (s === undefined ? undefined : s * 1000);
  const tools: Tool[] = [
    createBashTool({
      jobs,
      defaultTimeoutMs: seconds(settings.bash?.timeout),
      backgroundAfterMs: seconds(settings.bash?.background_after),
    }),
    createJobOutputTool({ jobs }),
    createJobKillTool({ jobs }),
    createViewTool(),
    createEditTool(),
    createMultiEditTool(),
    createWriteTool(),
    createLsTool(settings.ls ?? {}),
    createGlobTool(),
    createGrepTool({ timeout_ms: seconds(settings.grep?.timeout), ripgrep: opts.ripgrep }),
    createFetchTool({ default_timeout: settings.fetch?.timeout }),
    createTodosTool(),
  ];
  if (opts.runAgent) tools.push(createAgentTool(opts.runAgent));
  return { tools, dispose: () => jobs.dispose() };
}
