/**
 * `mopac mcp add NAME [options] -- CMD [ARGS…]`, `mopac mcp add NAME --url URL
 * [options]` and `mopac mcp remove NAME`: add or remove one server in the user's
 * config file (`$XDG_CONFIG_HOME/mopac/mopac.json`), keeping its comments and layout
 * (config/edit_file.ts). The entry is checked against the config schema before the
 * file is written; an existing NAME is replaced only with `--force`.
 */
import { parseArgs } from "node:util";
import type { Io } from "../io.ts";
import { EXIT } from "../exit_codes.ts";
import { MCP_EDIT_OPTIONS } from "../command_specs.ts";
import { MCP_HELP } from "../help.ts";
import { mcpServerSchema, readForEdit, userConfigFile, writeEdit } from "../../config/mod.ts";
import { ConfigError, UsageError } from "../../util/errors.ts";
import { readEnv } from "../../util/env.ts";

const OPTIONS = MCP_EDIT_OPTIONS;

export async function mcpEditCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const dash = rest.indexOf("--");
  const own = dash < 0 ? rest : rest.slice(0, dash);
  const command = dash < 0 ? [] : rest.slice(dash + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`mcp ${sub}: ${(err as Error).message.split("\n")[0]}`, {
      hint: "run 'mopac mcp --help'",
    });
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    io.out(MCP_HELP);
    return EXIT.ok;
  }
  const [name, ...extra] = positionals;
  if (name === undefined || extra.length > 0) {
    throw new UsageError(
      `mcp ${sub} takes one NAME${extra.length ? `, got ${positionals.join(" ")}` : ""}`,
      {
        hint: sub === "add"
          ? "mopac mcp add NAME -- COMMAND ARGS, or mopac mcp add NAME --url URL"
          : "mopac mcp remove NAME",
      },
    );
  }
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    throw new UsageError(`mcp ${sub} ${name}: a server name is letters, digits, '_' and '-'`);
  }
  const file = userConfigFile(readEnv);
  if (!file) {
    throw new UsageError("no user config folder: neither XDG_CONFIG_HOME nor HOME is set", {
      hint: "set XDG_CONFIG_HOME (and allow mopac to read it: --allow-env=XDG_CONFIG_HOME)",
    });
  }
  const parsedFile = await readForEdit(file);
  const servers = parsedFile.value.mcp as Record<string, unknown> | undefined;
  const exists = servers !== null && typeof servers === "object" && Object.hasOwn(servers, name);
  if (sub === "remove") {
    if (own.length > positionals.length || command.length > 0) {
      throw new UsageError("mcp remove takes only NAME");
    }
    if (!exists) throw new UsageError(`mcp remove ${name}: no server "${name}" in ${file}`);
    await writeEdit(parsedFile, ["mcp", name], undefined);
    io.out(`removed MCP server "${name}" from ${file}\n`);
    return EXIT.ok;
  }
  if (exists && !v.force) {
    throw new UsageError(`mcp add ${name}: ${file} has a server "${name}" already`, {
      hint: "add --force to replace it, or mopac mcp remove it first",
    });
  }
  const entry = serverEntry(v, command);
  const checked = mcpServerSchema().safeParse(entry);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const at = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new ConfigError(`mcp add ${name}: ${at}${issue.message}`);
  }
  await writeEdit(parsedFile, ["mcp", name], entry);
  io.out(`added MCP server "${name}" to ${file}\n`);
  return EXIT.ok;
}

type Values = {
  url?: string;
  type?: string;
  env?: string[];
  "env-var"?: string[];
  header?: string[];
  required?: boolean;
};

function serverEntry(v: Values, command: string[]): Record<string, unknown> {
  if ((v.url === undefined) === (command.length === 0)) {
    throw new UsageError("mcp add needs either -- COMMAND [ARGS…] or --url URL, not both", {
      hint: "mopac mcp add NAME -- npx -y pkg, or mopac mcp add NAME --url https://host/mcp",
    });
  }
  const out: Record<string, unknown> = {};
  if (v.url !== undefined) {
    if (v.type !== undefined && v.type !== "http" && v.type !== "sse") {
      throw new UsageError(`mcp add: --type takes http or sse, got '${v.type}'`);
    }
    if (v.env?.length || v["env-var"]?.length) {
      throw new UsageError("mcp add: --env and --env-var are for stdio servers (-- COMMAND)");
    }
    out.type = v.type ?? "http";
    out.url = v.url;
    if (v.header?.length) out.headers = pairs(v.header, "--header");
  } else {
    if (v.type !== undefined || v.header?.length) {
      throw new UsageError("mcp add: --type and --header are for --url servers");
    }
    out.type = "stdio";
    out.command = command[0];
    if (command.length > 1) out.args = command.slice(1);
    if (v.env?.length) out.env = pairs(v.env, "--env");
    if (v["env-var"]?.length) out.env_vars = v["env-var"];
  }
  if (v.required) out.required = true;
  return out;
}

function pairs(list: string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new UsageError(`mcp add: ${flag} ${item}: expected KEY=VALUE`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
