/**
 * The built-in tools: one factory per name in BUILTIN_TOOL_NAMES (src/domain), so
 * the list of names and the tools that exist cannot drift apart. The gate decides
 * which of them a run offers; MCP tools are added beside these by the app.
 */
import type { Tool } from "./types.ts";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../domain/tool_records.ts";
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
import type { ShellLauncher } from "../jail/types.ts";

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

/** What the factories get: settings, the job table bash and the job tools share, the runner. */
interface Deps {
  settings: ToolSettings;
  jobs: JobManager;
  runAgent?: AgentRunner;
  ripgrep?: string | false;
  /** Where bash runs: the run's OS jail (its owner disposes it: sub-agents share it). */
  launcher?: ShellLauncher;
  /** The profile's `fetch.hosts` (its address entries may be private addresses). */
  fetchHosts?: readonly string[];
}

const seconds = (s?: number) => (s === undefined ? undefined : s * 1000);

/** One factory per built-in tool name; undefined leaves the tool out of this run. */
const FACTORIES: Record<BuiltinToolName, (deps: Deps) => Tool | undefined> = {
  bash: ({ settings, jobs, launcher }) =>
    createBashTool({
      jobs,
      defaultTimeoutMs: seconds(settings.bash?.timeout),
      backgroundAfterMs: seconds(settings.bash?.background_after),
      launcher,
    }),
  job_output: ({ jobs }) => createJobOutputTool({ jobs }),
  job_kill: ({ jobs }) => createJobKillTool({ jobs }),
  view: () => createViewTool(),
  edit: () => createEditTool(),
  multiedit: () => createMultiEditTool(),
  write: () => createWriteTool(),
  ls: ({ settings }) => createLsTool(settings.ls ?? {}),
  glob: () => createGlobTool(),
  grep: ({ settings, ripgrep }) =>
    createGrepTool({ timeout_ms: seconds(settings.grep?.timeout), ripgrep }),
  fetch: ({ settings, fetchHosts }) =>
    createFetchTool({ default_timeout: settings.fetch?.timeout, hosts: fetchHosts }),
  todos: () => createTodosTool(),
  // Only a run that can start sub-agents has the tool at all.
  agent: ({ runAgent }) => runAgent && createAgentTool(runAgent),
};

export function builtinTools(
  settings: ToolSettings = {},
  opts: {
    runAgent?: AgentRunner;
    ripgrep?: string | false;
    launcher?: ShellLauncher;
    fetchHosts?: readonly string[];
  } = {},
): BuiltinTools {
  const jobs = new JobManager();
  const deps: Deps = { settings, jobs, ...opts };
  const tools = BUILTIN_TOOL_NAMES.map((name) => FACTORIES[name](deps))
    .filter((t): t is Tool => t !== undefined);
  return { tools, dispose: () => jobs.dispose() };
}
