/**
 * docs/events.schema.json is the stream-json contract: it is what
 * `deno task schema:events` generates, it describes the same objects as the event
 * types the program is written against, and every line real runs print validates
 * against it. The runs below make every event type and both kinds of result.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { RunEvent } from "../../src/app/run_events.ts";
import { eventsJsonSchemaText, type WireEvent } from "../../src/cli/events_schema.ts";
import {
  type ParsedRequest,
  scriptFault,
  scriptText,
  scriptToolCall,
  type TurnScript,
} from "../_support/fake_openai.ts";
import { events, REPO } from "../_support/run_mopac.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

const SCHEMA_FILE = `${REPO}docs/events.schema.json`;

/**
 * Compile-time: the schema's objects and the program's event types are one shape.
 * A field added on one side only stops `deno check` here.
 */
type Wire = { v: 1; ts: number } & RunEvent;
const _schemaCoversTypes = (e: Wire): WireEvent => e;
const _typesCoverSchema = (e: WireEvent): Wire => e;

Deno.test("docs/events.schema.json is what `deno task schema:events` writes", async () => {
  const committed = await Deno.readTextFile(SCHEMA_FILE);
  assert.equal(committed, eventsJsonSchemaText(), "run `deno task schema:events` and commit");
});

const SMALL = {
  models: {
    large: { provider: "fake", model: "fake-model" },
    small: { provider: "fake", model: "fake-small" },
  },
};

/** Title and summary requests by their system prompt; the rest go to `main`. */
function routed(main: (n: number) => ReturnType<typeof scriptText>) {
  let n = 0;
  return (req: ParsedRequest) => {
    const system = String(req.messages.find((m) => m.role === "system")?.content ?? "");
    if (system.startsWith("Write a title")) return scriptText("A title");
    if (system.startsWith("You summarize")) return scriptText("Task: greet. Next: answer.");
    return main(n++);
  };
}

async function run(ws: Workspace, args: string[]) {
  const r = await ws.run(["run", ...args]);
  assert.deepEqual(ws.fake.rejected, []);
  return r;
}

async function withWorkspace<T>(
  turns: TurnScript,
  config: Record<string, unknown>,
  fn: (ws: Workspace) => Promise<T>,
): Promise<T> {
  await using ws = await workspace({ models: ["fake-model", "fake-small"], turns }, config);
  return await fn(ws);
}

Deno.test("every line real runs print validates against docs/events.schema.json", async () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const schema = JSON.parse(await Deno.readTextFile(SCHEMA_FILE));
  const validate = ajv.compile(schema);
  // Per event type too, so a failure names the fields of that event, not of all nine.
  const variants = new Map<string, ReturnType<typeof ajv.compile>>();
  for (const entry of schema.oneOf as Array<Record<string, unknown>>) {
    const ref = entry.$ref as string | undefined;
    const variant = ref ? schema.$defs[ref.split("/").at(-1)!] : entry;
    const type = variant.properties.type.const as string;
    variants.set(type, ajv.compile({ $defs: schema.$defs, ...variant }));
  }
  const lines: Array<{ run: string; event: Record<string, unknown> }> = [];
  const keep = (name: string, stdout: string) =>
    lines.push(...events(stdout).map((event) => ({ run: name, event })));

  // Reasoning, text, a tool call and a denied one, a retried request, a failed MCP
  // server in init, a title from the small model, denials in the result.
  await withWorkspace(
    routed((n) =>
      [
        scriptToolCall("bash", { command: "echo hi" }, undefined, {
          reasoning: "I should look.",
          text: "Looking.",
        }),
        scriptToolCall("view", { file_path: "mopac.json" }),
        scriptFault({ status: 500 }),
        scriptText("All done."),
      ][n]
    ),
    { ...SMALL, mcp: { broken: { command: "false" } } },
    async (ws) => {
      ws.perms.run!.push("false");
      const r = await run(ws, ["-o", "stream-json", "--tools", "bash", "look around"]);
      assert.equal(r.code, 0, r.stderr);
      keep("tools", r.stdout);
    },
  );
  // A context overflow summarized away.
  await withWorkspace(
    routed((n) =>
      n === 0
        ? scriptFault({ fixture: "openrouter/error-400-context-length.json" })
        : scriptText("hello")
    ),
    SMALL,
    async (ws) => {
      const r = await run(ws, ["-o", "stream-json", "say hello"]);
      assert.equal(r.code, 0, r.stderr);
      keep("summarized", r.stdout);
    },
  );
  // -o json: a structured answer; a budget ending; a failure before the run started.
  await withWorkspace([scriptText('{"ok":true}')], {}, async (ws) => {
    await Deno.writeTextFile(`${ws.dir}/schema.json`, '{"type":"object"}');
    const r = await run(ws, ["-o", "json", "--output-schema", "schema.json", "answer"]);
    assert.equal(r.code, 0, r.stderr);
    keep("structured", r.stdout);
  });
  await withWorkspace([scriptToolCall("bash", { command: "true" })], {}, async (ws) => {
    const r = await run(ws, ["-o", "json", "--max-turns", "1", "loop"]);
    assert.equal(r.code, 4, r.stderr);
    keep("budget", r.stdout);
  });
  await withWorkspace([], {}, async (ws) => {
    const r = await run(ws, ["-o", "json", "-m", "nowhere/model", "hi"]);
    assert.equal(r.code, 2, r.stderr);
    keep("usage", r.stdout);
  });

  const invalid = lines.filter(({ event }) => !validate(event)).map(({ run, event }) => {
    const one = variants.get(String(event.type));
    const why = one && !one(event) ? ajv.errorsText(one.errors) : "no variant for this type";
    return `${run}: ${JSON.stringify(event)}\n  ${why}`;
  });
  assert.deepEqual(invalid, []);

  const types = new Set(lines.map(({ event }) => event.type));
  assert.deepEqual([...types].sort(), [
    "init",
    "reasoning",
    "request",
    "result",
    "retry",
    "summarized",
    "text",
    "tool_call",
    "tool_result",
    "turn",
  ]);
  const results = lines.filter(({ event }) => event.type === "result").map(({ event }) => event);
  assert.deepEqual(results.map((e) => e.subtype), [
    "success",
    "success",
    "success",
    "error_max_turns",
    "error_agent",
  ]);
  assert.ok(results.some((e) => (e.denials as unknown[]).length > 0), "a result with denials");
  assert.ok(results.some((e) => "structured_output" in e), "a result with structured_output");
  const init = lines.find(({ event }) => event.type === "init")!.event;
  assert.equal((init.mcp_servers as Array<{ status: string }>)[0].status, "failed");
});
