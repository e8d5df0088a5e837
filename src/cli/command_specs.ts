/**
 * What each command takes, in one table: its flags (as node:util parseArgs options, the
 * ones its parser uses), its subcommands and its help text. The help of a command, the
 * "did you mean" of a mistyped command or flag, and the shell completion scripts all
 * read it, and a test checks that every flag a parser accepts is in its help.
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { COMMON_OPTIONS, RUN_OPTIONS } from "./flags.ts";
import {
  COMPLETIONS_HELP,
  CONFIG_HELP,
  DOCTOR_HELP,
  MCP_HELP,
  MODELS_HELP,
  RUN_HELP,
  SANDBOX_HELP,
  SCHEMA_HELP,
  SESSIONS_HELP,
} from "./help.ts";

export interface CommandSpec {
  /** One line for completion menus. */
  summary: string;
  help: string;
  /** Every flag the command accepts (the common ones included). */
  options: ParseArgsOptionsConfig;
  subcommands?: readonly string[];
  /** Fixed values of flags that take one, for completion. */
  values?: Record<string, readonly string[]>;
}

const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const;

export const SESSIONS_OPTIONS = {
  json: { type: "boolean" },
  limit: { type: "string" },
  all: { type: "boolean" },
  format: { type: "string" },
  ...HELP_FLAG,
} as const;

export const MCP_OPTIONS = {
  json: { type: "boolean" },
  "open-with": { type: "string" },
  ...HELP_FLAG,
} as const;
/** `mcp add` and `mcp remove` (commands/mcp_edit.ts parses them). */
export const MCP_EDIT_OPTIONS = {
  url: { type: "string" },
  type: { type: "string" },
  env: { type: "string", multiple: true },
  "env-var": { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  required: { type: "boolean" },
  force: { type: "boolean" },
  ...HELP_FLAG,
} as const;
export const MODELS_OPTIONS = { json: { type: "boolean" }, ...HELP_FLAG } as const;
export const CONFIG_OPTIONS = {
  sources: { type: "boolean" },
  json: { type: "boolean" },
  ...HELP_FLAG,
} as const;
export const SANDBOX_OPTIONS = { ...RUN_OPTIONS, check: { type: "boolean" } } as const;
export const DOCTOR_OPTIONS = { ...RUN_OPTIONS, json: { type: "boolean" } } as const;

const withCommon = (options: ParseArgsOptionsConfig) => ({ ...options, ...COMMON_OPTIONS });

const RUN_VALUES = {
  "output-format": ["text", "json", "stream-json"],
  "on-deny": ["continue", "fail", "stop"],
  sandbox: ["on", "off"],
  color: ["auto", "always", "never"],
} as const;

export const COMMAND_SPECS: Record<string, CommandSpec> = {
  run: {
    summary: "run the agent on a prompt",
    help: RUN_HELP,
    options: RUN_OPTIONS,
    values: RUN_VALUES,
  },
  sessions: {
    summary: "list, show, export, remove and search sessions",
    help: SESSIONS_HELP,
    options: withCommon(SESSIONS_OPTIONS),
    subcommands: ["list", "show", "export", "rm", "search", "reindex"],
    values: { format: ["jsonl", "markdown"] },
  },
  models: {
    summary: "the catalog and configured providers",
    help: MODELS_HELP,
    options: withCommon(MODELS_OPTIONS),
  },
  mcp: {
    summary: "configured MCP servers: list, tools, ping, call, login, add, remove",
    help: MCP_HELP,
    options: withCommon({ ...MCP_OPTIONS, ...MCP_EDIT_OPTIONS }),
    subcommands: ["list", "tools", "ping", "call", "login", "logout", "add", "remove"],
    values: { type: ["http", "sse"] },
  },
  config: {
    summary: "show, locate and validate the config",
    help: CONFIG_HELP,
    options: withCommon(CONFIG_OPTIONS),
    subcommands: ["show", "path", "validate"],
  },
  schema: {
    summary: "the JSON Schema of the config file",
    help: SCHEMA_HELP,
    options: withCommon(HELP_FLAG),
  },
  sandbox: {
    summary: "the narrowest Deno permission flags for this config",
    help: SANDBOX_HELP,
    options: SANDBOX_OPTIONS,
    values: RUN_VALUES,
  },
  doctor: {
    summary: "check Deno, permissions, config, the jail, providers and MCP servers",
    help: DOCTOR_HELP,
    options: DOCTOR_OPTIONS,
    values: RUN_VALUES,
  },
  completions: {
    summary: "a shell completion script",
    help: COMPLETIONS_HELP,
    options: HELP_FLAG,
    subcommands: ["bash", "zsh", "fish"],
  },
};

/** The flags that may come before the command and apply to it. */
export const GLOBAL_OPTIONS = COMMON_OPTIONS;
