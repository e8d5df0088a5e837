/**
 * The tool contract. Built-in tools are factories registered in one list
 * (`registry.ts`); MCP tools are adapted to the same interface. Every call goes
 * one path (src/agent/tool_runner.ts): validate, gate, run, truncate, record.
 */
import type { Usage } from "../domain/usage.ts";
import type { ImagePart } from "../domain/message.ts";
import type { Access, PathView } from "../permission/types.ts";
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

/** What a tool call may use besides its arguments; one per session, the signal per call. */
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
  /**
   * The read rules for tools that list or search many files (ls, glob, grep): each
   * entry they show or read must be readable. Absent: everything is (tests).
   */
  paths?: PathView;
  /** Records file changes in the session's file history. */
  recordChange(change: FileChange): void;
  /** Notes that the state changed (so the session can persist it). */
  stateChanged(): void;
}

/** What a tool returns: `content` for the model (cut to the run's limits by the runner). */
export interface ToolOutput {
  content: string;
  /** The call failed in a way the model can act on; `content` says how. */
  is_error?: boolean;
  images?: ImagePart[];
  /** Model usage spent inside the tool (sub-agents); counts against the run's limits. */
  usage?: Usage;
  cost_usd?: number;
  /** Refusals that happened inside the tool (a sub-agent's own calls). */
  denials?: Denial[];
  /** A hook halted the run inside the tool (a sub-agent): the run ends too. */
  halt?: string;
}

/**
 * A tool the model can call, built-in (made with `defineTool`, define.ts) or from an
 * MCP server. `I` is its parsed arguments.
 *
 * Contract: every call goes one path (src/agent/tool_runner.ts), and a tool cannot
 * skip a step of it: the runner `parse`s the model's arguments, asks the gate with
 * what `access` reports, then `run`s the call with the same parsed object, and cuts
 * the output to the run's limits. `parse` throws ToolInputError for arguments the
 * model can correct. `run` may throw or return `is_error` for anything the model can
 * fix; both reach the model as an error result and never end the run. A tool that
 * touches files, hosts or runs commands must report them in `access`, or the gate
 * cannot check them.
 *
 * @example A tool written by hand (built-in tools use `defineTool` instead)
 * ```ts
 * import type { Tool } from "./types.ts";
 * import { ToolInputError } from "../util/errors.ts";
 *
 * const shout: Tool<{ text: string }> = {
 *   name: "shout",
 *   description: "Repeats the text in capitals",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   parse(input) {
 *     const text = (input as { text?: unknown } | null)?.text;
 *     if (typeof text !== "string") throw new ToolInputError("text must be a string");
 *     return { text };
 *   },
 *   run: (input) => Promise.resolve({ content: input.text.toUpperCase() }),
 * };
 * const input = shout.parse({ text: "hi" });
 * if (input.text !== "hi") throw new Error("parse kept the text");
 * ```
 */
export interface Tool<I = unknown> {
  /** The name the model calls (`[A-Za-z0-9_-]`, at most 64 characters). */
  readonly name: string;
  /** What the model reads about the tool. */
  readonly description: string;
  /** JSON Schema of the arguments object, as offered to the model. */
  readonly parameters: Record<string, unknown>;
  /**
   * Checks the model's arguments (an object, or `{}` for none).
   * @throws {ToolInputError} with a message the model can act on
   */
  parse(input: unknown): I;
  /** What the call would touch, for the gate. Omitted: touches nothing beyond the tool itself. */
  access?(input: I, ctx: ToolContext): Access | Promise<Access>;
  /** Runs the call with what `parse` returned, after the gate allowed it. */
  run(input: I, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * The model has begun a call of this tool (its arguments are still streaming): start
   * what any call will need, so the call does not wait for it. Must not act on the
   * model's behalf (nothing of the call is known yet). The runner ignores what it
   * returns and what it throws or rejects with.
   */
  warm?(): void | Promise<void>;
  /** For MCP tools: where the tool comes from. */
  readonly mcp?: { server: string; tool: string };
}
