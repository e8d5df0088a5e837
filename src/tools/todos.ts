/**
 * `todos`: the model's task list for this session. Each call replaces the whole
 * list (crush's semantics); the list lives in the session state so a resumed
 * session has it back.
 */
import * as z from "zod";
import type { Tool } from "./types.ts";
import { TODO_STATUSES, type TodoItem } from "../domain/tool_records.ts";
import { defineTool } from "./define.ts";

const itemSchema = z.object({
  content: z.string().trim().min(1).describe('What needs to be done, imperative ("Run tests")'),
  status: z.enum(TODO_STATUSES),
  active_form: z.string().optional().describe('Present continuous form ("Running tests")'),
});

const schema = z.object({
  todos: z.array(itemSchema).describe("The complete updated list (replaces the previous one)"),
});

const DESCRIPTION =
  `Keep a task list for multi-step work. Each call sends the complete list, which replaces the previous one.
- Use it for tasks of three or more steps; skip it for trivial work.
- Keep exactly one item in_progress; mark an item completed as soon as it is fully done (tests pass), not in batches.`;

export function createTodosTool(): Tool {
  return defineTool({
    name: "todos",
    description: DESCRIPTION,
    schema,
    run(args, ctx) {
      const before = new Map(ctx.state.todos.map((t) => [t.content, t.status]));
      const todos: TodoItem[] = args.todos.map((t) => ({
        content: t.content,
        status: t.status,
        ...(t.active_form ? { active_form: t.active_form } : {}),
      }));
      ctx.state.todos = todos;
      ctx.stateChanged();

      const count = (s: TodoItem["status"]) => todos.filter((t) => t.status === s).length;
      const lines = [
        `Todo list updated (${todos.length} items): ${count("pending")} pending, ` +
        `${count("in_progress")} in progress, ${count("completed")} completed.`,
      ];
      const active = todos.filter((t) => t.status === "in_progress");
      for (const t of active) lines.push(`In progress: ${t.active_form || t.content}`);
      const done = todos.filter((t) =>
        t.status === "completed" && before.has(t.content) &&
        before.get(t.content) !== "completed"
      );
      for (const t of done) lines.push(`Just completed: ${t.content}`);
      if (active.length > 1) {
        lines.push(`Note: ${active.length} items are in progress; keep exactly one in progress.`);
      }
      return Promise.resolve({ content: lines.join("\n") });
    },
  });
}
