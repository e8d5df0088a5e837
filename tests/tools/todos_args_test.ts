import assert from "node:assert/strict";
import { createEditTool } from "../../src/tools/edit.ts";
import { createFetchTool } from "../../src/tools/fetch.ts";
import { createGlobTool } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { createLsTool } from "../../src/tools/ls.ts";
import { createMultiEditTool } from "../../src/tools/multiedit.ts";
import { createTodosTool } from "../../src/tools/todos.ts";
import { createViewTool } from "../../src/tools/view.ts";
import { createWriteTool } from "../../src/tools/write.ts";
import type { Tool } from "../../src/tools/types.ts";
import { ToolInputError } from "../../src/util/errors.ts";
import { call, makeContext } from "./_helpers.ts";

Deno.test("todos: replaces the list, stores active_form, summarises, notifies the session", async () => {
  const ctx = makeContext("/tmp");
  const todos = createTodosTool();
  const first = await call(todos, {
    todos: [
      { content: "Write tests", status: "in_progress", active_form: "Writing tests" },
      { content: "Fix bug", status: "pending", active_form: "Fixing bug" },
    ],
  }, ctx);
  assert.equal(
    first.out.content,
    "Todo list updated (2 items): 1 pending, 1 in progress, 0 completed.\nIn progress: Writing tests",
  );
  assert.deepEqual(ctx.state.todos, [
    { content: "Write tests", status: "in_progress", active_form: "Writing tests" },
    { content: "Fix bug", status: "pending", active_form: "Fixing bug" },
  ]);
  assert.equal(ctx.stateChanges, 1);
  const second = await call(todos, {
    todos: [
      { content: "Write tests", status: "completed" },
      { content: "Fix bug", status: "in_progress" },
      { content: "Release", status: "in_progress" },
    ],
  }, ctx);
  assert.equal(
    second.out.content,
    "Todo list updated (3 items): 0 pending, 2 in progress, 1 completed.\nIn progress: Fix bug\n" +
      "In progress: Release\nJust completed: Write tests\n" +
      "Note: 2 items are in progress; keep exactly one in progress.",
  );
  assert.equal(ctx.state.todos.length, 3);
  assert.equal(ctx.stateChanges, 2);
  const cleared = await call(todos, { todos: [] }, ctx);
  assert.match(cleared.out.content, /\(0 items\)/);
  assert.deepEqual(ctx.state.todos, []);
});

function rejects(tool: Tool, input: unknown, message: RegExp) {
  assert.throws(
    () => tool.parse(input),
    (err: unknown) => err instanceof ToolInputError && message.test(err.message),
    `${tool.name} ${JSON.stringify(input)}`,
  );
}

Deno.test("malformed arguments: wrong types and missing fields throw ToolInputError naming the field", () => {
  const view = createViewTool();
  rejects(view, {}, /^file_path is required \(string\)$/);
  rejects(view, { file_path: 42 }, /^file_path must be a string, got number 42$/);
  rejects(view, { file_path: "a", offset: "10" }, /offset must be a number, got the string "10"/);
  rejects(view, { file_path: "a", offset: -1 }, /^offset must be at least 0, got -1$/);
  rejects(view, { file_path: "a", limit: 1.5 }, /^limit must be an integer, got number 1\.5$/);
  rejects(view, { file_path: "" }, /^file_path must not be empty$/);
  rejects(view, [], /arguments must be a JSON object, got an array/);
  rejects(view, "{not json", /arguments must be a JSON object, got unparsable text/);
  rejects(view, 7, /arguments must be a JSON object, got number 7/);

  rejects(createEditTool(), { file_path: "a", old_string: "x" }, /new_string is required/);
  rejects(createEditTool(), {
    file_path: "a",
    old_string: "x",
    new_string: "y",
    replace_all: "yes",
  }, /replace_all must be a boolean/);
  rejects(createMultiEditTool(), { file_path: "a", edits: "x" }, /edits must be an array/);
  rejects(createMultiEditTool(), { file_path: "a", edits: [] }, /edits must have at least 1 item$/);
  rejects(
    createFetchTool(),
    { url: "https://x.dev", timeout: 0 },
    /timeout must be greater than 0/,
  );
  rejects(
    createMultiEditTool(),
    { file_path: "a", edits: [{ old_string: "x" }] },
    /edits\[0\]\.new_string is required/,
  );
  rejects(createWriteTool(), { file_path: "a" }, /content is required/);
  rejects(
    createWriteTool(),
    { file_path: "a", content: null },
    /content must be a string, got null/,
  );
  rejects(createLsTool(), { ignore: "*.ts" }, /ignore must be an array/);
  rejects(createLsTool(), { depth: "2" }, /depth must be a number/);
  rejects(createGlobTool(), { path: "src" }, /pattern is required/);
  rejects(createGrepTool(), { pattern: "x", literal_text: 1 }, /literal_text must be a boolean/);
  rejects(
    createGrepTool(),
    { pattern: "x", include: ["*.ts"] },
    /include must be a string, got an array/,
  );
  rejects(createFetchTool(), { url: "https://x.dev", timeout: "5" }, /timeout must be a number/);
  rejects(createFetchTool(), { format: "text" }, /url is required/);
  rejects(
    createTodosTool(),
    { todos: [{ content: "a", status: "done" }] },
    /todos\[0\]\.status must be one of "pending", "in_progress", "completed"/,
  );
  rejects(
    createTodosTool(),
    { todos: [{ content: "  ", status: "pending" }] },
    /todos\[0\]\.content must not be empty/,
  );
  rejects(createTodosTool(), {}, /todos is required/);

  // A JSON string of a valid object is accepted.
  assert.deepEqual(view.parse('{"file_path":"a.ts","limit":3}'), { file_path: "a.ts", limit: 3 });
});

Deno.test("unknown argument names are refused with the accepted names and the likely one", () => {
  // Claude Code's grep options, Codex's bash timeout, an extra field on fetch.
  rejects(
    createGrepTool(),
    { pattern: "x", glob: "*.ts", "-i": true, output_mode: "content" },
    /^unknown argument "glob" \(did you mean "include" or "pattern"\?\); accepted: pattern, path, include, literal_text; unknown argument "-i"; accepted: .*; unknown argument "output_mode"; accepted: /,
  );
  rejects(
    createFetchTool(),
    { url: "https://x.dev", prompt: "summarise it" },
    /^unknown argument "prompt"; accepted: url, format, timeout, offset$/,
  );
  rejects(
    createViewTool(),
    { path: "a.ts" },
    /^unknown argument "path" \(did you mean "file_path"\?\); accepted: file_path, offset, limit; file_path is required \(string\)$/,
  );
  // Inside arrays of objects too, with the path to the field.
  rejects(
    createMultiEditTool(),
    { file_path: "a", edits: [{ old_string: "x", new_string: "y", old_str: "x" }] },
    /^edits\[0\]: unknown argument "old_str" \(did you mean "old_string"\?\); accepted: old_string, new_string, replace_all$/,
  );
  rejects(
    createTodosTool(),
    { todos: [{ content: "a", status: "pending", priority: "high" }] },
    /^todos\[0\]: unknown argument "priority"; accepted: content, status, active_form$/,
  );
});

Deno.test("a time limit above the schema's maximum is an error, not lowered quietly", () => {
  const fetch = createFetchTool();
  const timeout = (fetch.parameters.properties as Record<string, { maximum?: number }>).timeout;
  assert.equal(timeout.maximum, 120);
  rejects(fetch, { url: "https://x.dev", timeout: 500 }, /^timeout must be at most 120, got 500$/);
});

Deno.test("parameters: plain JSON Schema objects with crush's parameter names", () => {
  const expected: Record<string, string[]> = {
    view: ["file_path", "offset", "limit"],
    edit: ["file_path", "old_string", "new_string", "replace_all"],
    multiedit: ["file_path", "edits"],
    write: ["file_path", "content"],
    ls: ["path", "ignore", "depth"],
    glob: ["pattern", "path"],
    grep: ["pattern", "path", "include", "literal_text"],
    fetch: ["url", "format", "timeout", "offset"],
    todos: ["todos"],
  };
  const tools = [
    createViewTool(),
    createEditTool(),
    createMultiEditTool(),
    createWriteTool(),
    createLsTool(),
    createGlobTool(),
    createGrepTool(),
    createFetchTool(),
    createTodosTool(),
  ];
  for (const tool of tools) {
    const schema = tool.parameters as {
      type: string;
      properties: Record<string, unknown>;
      $schema?: string;
    };
    assert.equal(schema.type, "object", tool.name);
    assert.equal(schema.$schema, undefined, tool.name);
    assert.deepEqual(Object.keys(schema.properties), expected[tool.name], tool.name);
    assert.ok(tool.description.length > 80, tool.name);
  }
  const multi = createMultiEditTool().parameters as {
    properties: { edits: { items: { properties: Record<string, unknown>; required: string[] } } };
  };
  assert.deepEqual(Object.keys(multi.properties.edits.items.properties), [
    "old_string",
    "new_string",
    "replace_all",
  ]);
  const todos = createTodosTool().parameters as {
    properties: { todos: { items: { properties: Record<string, unknown>; required: string[] } } };
  };
  assert.deepEqual(Object.keys(todos.properties.todos.items.properties), [
    "content",
    "status",
    "active_form",
  ]);
  assert.deepEqual(todos.properties.todos.items.required, ["content", "status"]);
});
