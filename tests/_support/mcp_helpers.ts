/** Shared bits of the MCP tests: fixture configs, a tool context, process checks. */
import type { McpServerConfig } from "../../src/mcp/config.ts";
import type { Tool, ToolOutput } from "../../src/tools/types.ts";
import { testToolContext } from "./tool_context.ts";
import { DENO_RUN, START_TIMEOUT_S } from "./deps.ts";

export const FIXTURE = new URL("./mcp_fixture_server.ts", import.meta.url).pathname;

/** The fixture over stdio, run by the same Deno as the tests, with a generous start deadline. */
export function fixtureStdio(extra: Partial<McpServerConfig> = {}, args: string[] = []) {
  return {
    command: Deno.execPath(),
    args: [...DENO_RUN, "-A", FIXTURE, "stdio", ...args],
    start_timeout: START_TIMEOUT_S,
    ...extra,
  } satisfies McpServerConfig;
}

export function toolContext(opts: { attachments?: boolean; signal?: AbortSignal } = {}) {
  return testToolContext(Deno.cwd(), opts);
}

export function findTool(tools: Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

export async function runTool(
  tools: Tool[],
  name: string,
  input: unknown = {},
  ctx = toolContext(),
): Promise<ToolOutput> {
  const tool = findTool(tools, name);
  return await tool.run(tool.parse(input), ctx);
}

/** Processes whose command line contains `marker`, from `ps` (zombies show as `<defunct>`). */
export async function processesMatching(marker: string): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,pgid,stat,args"] }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

export function processGone(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // A zombie (state Z) has exited; only its entry is left for the parent to reap.
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
