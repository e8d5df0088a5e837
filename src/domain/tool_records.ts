/**
 * The built-in tools' names, and what tool calls leave behind in a session besides
 * messages: file changes, the todo list, and refused calls. The session file stores
 * these shapes.
 */

/**
 * The name of every built-in tool, as the model calls it (crush's names, DESIGN §7).
 * The tool registry has exactly one factory per name (the compiler checks both ways),
 * and profiles and permissions name tools from this list.
 */
export const BUILTIN_TOOL_NAMES = [
  "bash",
  "job_output",
  "job_kill",
  "view",
  "edit",
  "multiedit",
  "write",
  "ls",
  "glob",
  "grep",
  "fetch",
  "todos",
  "agent",
] as const;
export type BuiltinToolName = typeof BUILTIN_TOOL_NAMES[number];

/** One before/after pair of a file changed by a tool. */
export interface FileChange {
  path: string;
  /** null when the file did not exist. */
  before: string | null;
  after: string | null;
}

/** Every status a todo item can have. */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;

export interface TodoItem {
  content: string;
  status: typeof TODO_STATUSES[number];
  /** The present-continuous form shown while the item is in progress (crush). */
  active_form?: string;
}

/** A refused call, as reported in the `result` event and the session. */
export interface Denial {
  tool: string;
  tool_call_id: string;
  input_summary: string;
  rule: string;
  reason: string;
}
