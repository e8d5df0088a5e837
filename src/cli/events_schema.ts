/**
 * The stream-json wire format as a schema: every event a run prints with
 * `-o stream-json` (one JSON object a line, `"v": 1` first), and the `result` object
 * that `-o json` prints alone. docs/events.schema.json is generated from it
 * (`deno task schema:events`); tests check that file is current, that the schema
 * and the event types (RunEvent in src/app/run_events.ts) describe the same objects, and that
 * what real runs print validates against it. Objects are closed: a field added to an
 * event without a line here fails those tests instead of going undocumented.
 */
import * as z from "zod";

const Usage = z.strictObject({
  input_tokens: z.int().nonnegative(),
  output_tokens: z.int().nonnegative(),
  cached_input_tokens: z.int().nonnegative().describe("Part of input_tokens"),
  reasoning_tokens: z.int().nonnegative().optional().describe("Part of output_tokens"),
  estimated: z.boolean().optional().describe("The provider sent no usage; mopac estimated it"),
}).meta({ id: "usage" });

const McpServerStatus = z.strictObject({
  name: z.string(),
  status: z.enum(["connected", "failed", "disabled"]),
  tools: z.int().nonnegative(),
  error: z.string().optional(),
});

const Denial = z.strictObject({
  tool: z.string(),
  tool_call_id: z.string(),
  input_summary: z.string().describe("The call's arguments, secrets masked, at most a line"),
  rule: z.string().describe('What refused it, e.g. "not_allowed", "bash.deny:rm *", "ban:network"'),
  reason: z.string(),
}).meta({ id: "denial" });

const V = {
  v: z.literal(1).describe("Format version"),
  ts: z.int().nonnegative().describe("When the event was written, in ms since the epoch"),
};

const Init = z.strictObject({
  ...V,
  type: z.literal("init"),
  session_id: z.string().describe('"(not stored)" with --ephemeral'),
  model: z.string().describe('"provider/model"'),
  agent: z.string(),
  cwd: z.string(),
  tools: z.array(z.string()).describe("Names of the tools offered to the model"),
  mcp_servers: z.array(McpServerStatus),
  sandbox: z.strictObject({
    backend: z.string().describe('"bwrap", "sandbox-exec", "off" (--sandbox off) or "none"'),
    network: z.string().describe("The jail's network mode"),
    hosts: z.array(z.string()).readonly().optional().describe("Hosts the proxy lets through"),
  }).optional().describe("The OS jail of the model's processes, when bash is offered"),
  project_trusted: z.boolean().describe(
    "Whether the project's own config files were trusted (--trust-project, " +
      "MOPAC_TRUST_PROJECT=1, trusted_projects)",
  ),
  ignored_project_keys: z.array(z.strictObject({
    file: z.string().describe("The config file, relative to the project root when inside it"),
    key: z.string().describe('Dotted path of the key; "*" for the whole file'),
    reason: z.string(),
  })).describe("What the project's config asked for and did not get"),
});

const Request = z.strictObject({
  ...V,
  type: z.literal("request"),
  n: z.int().positive().describe("The turn this request becomes when it completes"),
  model: z.string().describe('"provider/model"'),
  message_id: z.string().describe("The message its text streams as"),
});

const Text = z.strictObject({
  ...V,
  type: z.literal("text"),
  delta: z.string(),
  message_id: z.string(),
});

const Reasoning = z.strictObject({
  ...V,
  type: z.literal("reasoning"),
  delta: z.string(),
  message_id: z.string(),
});

const ToolCall = z.strictObject({
  ...V,
  type: z.literal("tool_call"),
  id: z.string(),
  name: z.string(),
  input: z.unknown().describe("The arguments as parsed from the model's JSON"),
});

const ToolResult = z.strictObject({
  ...V,
  type: z.literal("tool_result"),
  id: z.string(),
  name: z.string(),
  is_error: z.boolean(),
  denied: z.boolean(),
  output: z.string().describe("What the model gets back, after truncation"),
  duration_ms: z.int().nonnegative().describe("From the tool_call to the end of the call"),
});

const Retry = z.strictObject({
  ...V,
  type: z.literal("retry"),
  attempt: z.int().min(2).describe("The attempt about to start"),
  delay_ms: z.int().nonnegative(),
  reason: z.string(),
  message_id: z.string().describe("Drop the text streamed so far for this message"),
  model: z.string().optional().describe(
    "Set when the next attempt runs on the fallback model (--fallback-model)",
  ),
});

const Summarized = z.strictObject({
  ...V,
  type: z.literal("summarized"),
  summary_message_id: z.string(),
  tokens_before: z.int().nonnegative(),
});

const Turn = z.strictObject({
  ...V,
  type: z.literal("turn"),
  n: z.int().positive(),
  usage: Usage,
  cost_usd: z.number().nonnegative(),
});

export const RESULT_SUBTYPES = [
  "success",
  "error_max_turns",
  "error_budget",
  "error_gate",
  "error_agent",
  "error_tool",
  "error_session_busy",
  "cancelled",
] as const;

const Result = z.strictObject({
  ...V,
  type: z.literal("result"),
  subtype: z.enum(RESULT_SUBTYPES),
  is_error: z.boolean(),
  exit_code: z.int().describe("The process's exit code (docs/exit-codes.md)"),
  result: z.string().describe("The final answer's text"),
  session_id: z.string().describe('"" when the run failed before a session existed'),
  num_turns: z.int().nonnegative(),
  usage: Usage,
  cost_usd: z.number().nonnegative(),
  duration_ms: z.int().nonnegative(),
  denials: z.array(Denial),
  structured_output: z.unknown().optional().describe("The parsed answer, with --output-schema"),
  error: z.string().optional().describe("Why the run ended, when it did not succeed"),
  fallback: z.strictObject({
    model: z.string().describe("The fallback model the run switched to"),
    from: z.string().describe("The model that failed"),
    reason: z.string(),
  }).optional().describe("Set when the run switched to --fallback-model"),
}).meta({ id: "result" });

/** One line of `-o stream-json`. */
export const WireEventSchema = z.discriminatedUnion("type", [
  Init,
  Request,
  Text,
  Reasoning,
  ToolCall,
  ToolResult,
  Retry,
  Summarized,
  Turn,
  Result,
]);

/** What `-o json` prints, and the last line of `-o stream-json`. */
export const ResultObjectSchema = Result;

export type WireEvent = z.output<typeof WireEventSchema>;

/** JSON Schema (draft 2020-12) of one stream-json line; `$defs.result` is the json output. */
export function eventsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(WireEventSchema, { io: "output" });
  return {
    ...schema,
    title: "mopac stream-json event (v1)",
    description:
      "One line of `mopac run -o stream-json`. `-o json` prints one object of the result variant.",
  };
}

/** The file docs/events.schema.json holds, byte for byte. */
export function eventsJsonSchemaText(): string {
  return JSON.stringify(eventsJsonSchema(), null, 2) + "\n";
}
