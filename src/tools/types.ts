/**
 * The tool contract. Built-in tools are factories registered in one list
 * (`registry.ts`); MCP tools are adapted to the same interface. Every call goes
 * one path (src/agent/tool_runner.ts): validate, gate, run, truncate, record.
 */
import type { Usage } from "../domain/usage.ts";
import type { ImagePart } from "../domain/message.ts";
import type { Access } from "../permission/types.ts";
import type { Denial, FileChange, TodoItem } from "../domain/tool_records.ts";

/**
 * State that lives as long as the session: which files were viewed when (edits need
 * a fresh view), todos, and the shell's directory and exports. Resume restores it.
 */
export interface ToolState {
  /** Absolute path → mtime (ms) of the file when it was last viewed or written by a tool. */
  viewed: Map<string, number>;
  todos: TodoItem[];
  shell: { cwd: string; env: Record<string, string> };
}

export interface ToolContext {
  session_id: string;
  /** Workspace root: file tools stay inside it unless the profile allows more. */
  workspace: string;
  state: ToolState;
  signal: AbortSignal;
  /** Extra environment for child processes (config `env`), never provider keys. */
  env: Record<string, string>;
  /** The model can take images in tool results. */
  attachments: boolean;
  /** Records file changes in the session's file history. */
  recordChange(change: FileChange): void;
  /** Notes that the state changed (so the session can persist it). */
  stateChanged(): void;
}

export interface ToolOutput {
  content: string;
  is_error?: boolean;
  images?: ImagePart[];
  /** Model usage spent inside the tool (sub-agents); counts against the run's limits. */
  usage?: Usage;
  cost_usd?: number;
  /** Refusals that happened inside the tool (a sub-agent's own calls). */
  denials?: Denial[];
}

/**
 * A tool the model can call, built-in (see define.ts) or from an MCP server. `I` is
 * its parsed arguments. Every call goes one path (agent/tool_runner.ts): `parse` the model's
 * arguments, ask the gate with what `access` reports, `run`, truncate the output.
 */
export interface Tool<I = unknown> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object, as offered to the model. */
  readonly parameters: Record<string, unknown>;
  /** Checks the model's arguments; throws ToolInputError with a message the model can act on. */
  parse(input: unknown): I;
  /** What the call would touch, for the gate. Omitted: touches nothing beyond the tool itself. */
  access?(input: I, ctx: ToolContext): Access | Promise<Access>;
  /** Runs the call with what `parse` returned, after the gate allowed it. */
  run(input: I, ctx: ToolContext): Promise<ToolOutput>;
  /** For MCP tools: where the tool comes from. */
  readonly mcp?: { server: string; tool: string };
}
