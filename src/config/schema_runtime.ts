/**
 * `mcp`, `hooks`, `tools`, `options` and `permissions`: crush's blocks. Keys crush
 * has for its TUI are accepted and ignored so a project's crush.json still loads.
 */
import * as z from "zod";
import { DURATION_FORMS, MAX_TIMER_SECONDS, parseDurationSeconds } from "../util/duration.ts";
import { checkMcpOAuth, mcpOAuthKeys } from "./schema_mcp_oauth.ts";
import { madeOnce } from "../util/load_once.ts";

/** A duration in config: seconds or "90s" / "10m" / "1h30m"; validated config holds seconds. */
export const DurationSchema = z
  .union([z.number().nonnegative(), z.string()])
  .describe(`Duration: ${DURATION_FORMS}`)
  .transform((value, ctx) => {
    const seconds = parseDurationSeconds(value);
    if (seconds === undefined) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `invalid duration ${JSON.stringify(value)}: expected ${DURATION_FORMS}`,
      });
      return z.NEVER;
    }
    return seconds;
  });

const StringMap = z.record(z.string(), z.string());

/**
 * Network of jailed processes: "none" (default), "all" (no network namespace, an
 * explicit choice), or `{hosts: [...]}` through mopac's proxy.
 */
export const NetworkSchema = z.union([
  z.enum(["none", "all"]),
  z.strictObject({
    hosts: z.array(z.string().min(1)).describe(
      "host, host:port, *.domain or an IP:port; reached through mopac's proxy",
    ),
  }),
]).describe('Network for jailed processes: "none" (default), "all", or {"hosts": [...]}');

/**
 * crush's MCP block verbatim plus mopac's `required`, `sandbox` and OAuth keys
 * (schema_mcp_oauth.ts); `type` is inferred like crush does. Made at first use: a
 * config that names no MCP server never needs it (schema.ts).
 */
export const mcpServerSchema = madeOnce(() =>
  z.strictObject({
    type: z.enum(["stdio", "sse", "http"]).optional().describe(
      "Transport; default stdio with a command, http with a url",
    ),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    env: StringMap.optional(),
    env_vars: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "not a variable name"))
      .optional()
      .describe(
        "mopac: names of mopac's own environment variables passed on to this stdio server " +
          "(it otherwise gets only a clean base environment plus env)",
      ),
    url: z.string().optional(),
    headers: StringMap.optional(),
    disabled: z.boolean().optional(),
    enabled_tools: z.array(z.string()).optional(),
    disabled_tools: z.array(z.string()).optional(),
    timeout: z.number().positive().max(MAX_TIMER_SECONDS).default(10).describe(
      "Seconds each request (a tool call, a ping) may go without an answer or progress",
    ),
    start_timeout: z.number().positive().max(MAX_TIMER_SECONDS).optional().describe(
      "mopac: seconds to start the server (spawn or connect, initialize, list tools); " +
        "default the larger of 30 and timeout",
    ),
    required: z.boolean().optional().describe("mopac: failing to start ends the run (exit 6)"),
    sandbox: z.union([z.boolean(), z.strictObject({ network: NetworkSchema.optional() })])
      .optional()
      .describe("mopac: run this stdio server in the OS jail (true: no network)"),
    ...mcpOAuthKeys(),
    // crush keys without meaning here
    sessionless: z.boolean().optional().describe("crush; ignored"),
    channel_enabled: z.boolean().optional().describe("crush; ignored"),
    channel_reply: z.unknown().optional().describe("crush; ignored"),
  })
    .superRefine((server, ctx) => {
      const kind = server.type ?? (server.command === undefined && server.url ? "http" : "stdio");
      if (kind === "stdio" && !server.command?.trim()) {
        ctx.addIssue({
          code: "custom",
          path: ["command"],
          message: "a stdio server needs a command",
        });
      }
      if (kind !== "stdio") {
        if (!server.url) {
          ctx.addIssue({ code: "custom", path: ["url"], message: `a ${kind} server needs a url` });
        } else if (!/^https?:\/\//.test(server.url)) {
          ctx.addIssue({
            code: "custom",
            path: ["url"],
            message: "url must start with http(s)://",
          });
        }
      }
      checkMcpOAuth(server, kind, ctx);
    })
);

const HookSchema = z.strictObject({
  name: z.string().optional(),
  matcher: z
    .string()
    .optional()
    .describe("Regular expression on the tool name; empty matches every tool")
    .refine((m) => m === undefined || compiles(m), { message: "matcher is not a valid regex" }),
  command: z.string().min(1).describe("Run with bash -c; the call's JSON arrives on stdin"),
  timeout: z.int().positive().max(MAX_TIMER_SECONDS).default(30).describe("Seconds"),
});

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/**
 * crush writes event names in any case (`PreToolUse`, `pre_tool_use`); the merge turns
 * each into its canonical name (merge.ts). mopac runs PreToolUse hooks only.
 */
const ignoredEvent = z.unknown().optional().describe("crush; ignored (mopac runs PreToolUse only)");
export const HooksSchema = z.strictObject({
  PreToolUse: z.array(HookSchema).optional(),
  PostToolUse: ignoredEvent,
  UserPromptSubmit: ignoredEvent,
  Stop: ignoredEvent,
  SubagentStop: ignoredEvent,
  PreCompact: ignoredEvent,
  PermissionRequested: ignoredEvent,
  Notification: ignoredEvent,
  SessionStart: ignoredEvent,
  SessionEnd: ignoredEvent,
});

const HOOK_EVENTS = Object.keys(HooksSchema.shape);

/** The canonical name of a hook event written in any case, with or without `_`. */
export function hookEventName(key: string): string {
  const flat = key.replace(/[_-]/g, "").toLowerCase();
  return HOOK_EVENTS.find((e) => e.toLowerCase() === flat) ?? key;
}

export const ToolsSchema = z.strictObject({
  ls: z.strictObject({
    max_depth: z.int().nonnegative().optional(),
    max_items: z.int().positive().optional(),
  }).optional(),
  grep: z.strictObject({ timeout: DurationSchema.optional() }).optional(),
  glob: z.strictObject({ timeout: DurationSchema.optional() }).optional(),
  bash: z.strictObject({
    timeout: DurationSchema.optional().describe("Default time limit of a command"),
    background_after: DurationSchema.optional().describe("Move a command to the background after"),
  }).optional(),
  fetch: z.strictObject({ timeout: DurationSchema.optional() }).optional(),
});

export const OptionsSchema = z.strictObject({
  context_paths: z.array(z.string()).optional(),
  global_context_paths: z.array(z.string()).optional(),
  skills_paths: z.array(z.string()).optional(),
  mcp_roots: z.array(z.string()).optional().describe(
    "mopac: folders offered to MCP servers as roots, relative to the project root; none → no roots capability",
  ),
  disabled_skills: z.array(z.string()).optional(),
  disabled_tools: z.array(z.string()).optional(),
  disable_auto_summarize: z.boolean().optional(),
  data_directory: z.string().optional().describe("Relative to the project root; default .mopac"),
  default_agent: z.string().optional().describe(
    'Agent profile when -a is not given; default "coder"',
  ),
  request_timeout: z.int().nonnegative().max(MAX_TIMER_SECONDS).optional().describe(
    "Seconds without stream activity before a request is aborted; 0 disables",
  ),
  disable_default_providers: z.boolean().optional().describe("Hide the built-in catalog providers"),
  debug: z.boolean().optional(),
  sandbox: z.enum(["on", "off"]).optional().describe(
    'mopac: "off" runs the model\'s commands without the OS jail; read from flags, MOPAC_SANDBOX, ' +
      "--config and user config only, never from project config",
  ),
  // crush keys for its TUI and services: accepted, ignored
  tui: z.unknown().optional().describe("crush; ignored"),
  debug_lsp: z.boolean().optional().describe("crush; ignored"),
  disable_provider_auto_update: z.boolean().optional().describe("crush; ignored"),
  attribution: z.unknown().optional().describe("crush; ignored"),
  disable_metrics: z.boolean().optional().describe("crush; ignored"),
  initialize_as: z.string().optional().describe("crush; ignored"),
  auto_lsp: z.boolean().optional().describe("crush; ignored"),
  progress: z.boolean().optional().describe("crush; ignored"),
  notifications: z.string().optional().describe("crush; ignored"),
});

export const PermissionsSchema = z.strictObject({
  allowed_tools: z.array(z.string()).optional().describe("Narrows every agent profile"),
});
