/**
 * `mopac mcp list|tools|ping|call|login|logout`: look at the configured MCP servers
 * without a model. Each subcommand starts only the servers it needs, prints a table
 * (or one JSON object with `--json`) and closes them again; login and logout live in
 * mcp_login.ts. Exit codes: 0 fine, 2 usage, 6 a server (or, for `list`, a required
 * server) failed or a called tool returned an error.
 */
import { parseArgs } from "node:util";
import type { Io } from "../io.ts";
import { EXIT } from "../exit_codes.ts";
import { splitCommon } from "../flags.ts";
import { MCP_HELP } from "../help.ts";
import { MCP_OPTIONS } from "../command_specs.ts";
import { didYouMean, flagSuggestion } from "../suggest.ts";
import { logsDir, oauthTokenDir } from "../../config/mod.ts";
import { readEnv } from "../../util/env.ts";
import { type McpServerConfig, transportKind } from "../../mcp/config.ts";
import { createMcpManager, type McpManager, type McpManagerOptions } from "../../mcp/manager.ts";
import { mapCallResult } from "../../mcp/result.ts";
import { errorText } from "../../mcp/errors.ts";
import { ensureDataDir } from "../../util/data_dir.ts";

export interface McpCommandIo {
  stdout(s: string): void;
  stderr(s: string): void;
  servers: Record<string, McpServerConfig>;
  logDir: string;
  /** Holds logDir; created (with its .gitignore) only once a server is started. */
  dataDir?: string;
  /** How a run starts servers (logs redacted, roots, OAuth); absent: plain options (tests). */
  manager?: McpManagerOptions;
  /** Where OAuth logins are kept (the user's data dir). */
  oauthDir?: string;
}

/**
 * The command as the CLI dispatches it: servers start exactly as a run starts them
 * (app/tooling.ts), and everything printed is redacted with the run's secrets.
 */
export async function mcpCommand(argv: string[], io: Io): Promise<number> {
  // add and remove edit the user's config file: nothing to load or start.
  if (argv[0] === "add" || argv[0] === "remove") {
    return await (await import("./mcp_edit.ts")).mcpEditCommand(argv, io);
  }
  const { rest, load } = splitCommon(argv, io);
  const loaded = await load();
  const { runSecrets } = await import("../../secrets/sources.ts");
  const { mcpManagerOptions } = await import("../../app/tooling.ts");
  const redactor = runSecrets(loaded, []);
  const err = (s: string) => io.err(redactor.redact(s));
  const commandIo = (servers: Record<string, McpServerConfig>): McpCommandIo => ({
    stdout: (s) => io.out(redactor.redact(s)),
    stderr: err,
    servers,
    logDir: logsDir(loaded.dataDir),
    dataDir: loaded.dataDir,
    oauthDir: oauthTokenDir(readEnv),
    manager: mcpManagerOptions(
      loaded.config,
      { dataDir: loaded.dataDir, workspace: loaded.workspaceRoot },
      redactor,
      (line) => err(`${line}\n`),
    ),
  });
  // Login and logout concern http/sse servers only: no jail is needed (or started) for them.
  const sub = subcommandOf(rest);
  if (sub === "login" || sub === "logout") {
    return await runMcpCommand(rest, commandIo(loaded.config.mcp ?? {}));
  }
  // Servers marked `sandbox` start in the OS jail here too, as in a run.
  const { jailedServersOf } = await import("../../app/jail.ts");
  const jailed = await jailedServersOf(loaded, (line) => err(`${line}\n`));
  try {
    return await runMcpCommand(rest, commandIo(jailed.servers));
  } finally {
    await jailed.close();
  }
}

/** The subcommand `args` name; undefined when they do not parse (runMcpCommand says why). */
function subcommandOf(args: string[]): string | undefined {
  try {
    return parseArgs({ args, allowPositionals: true, options: MCP_OPTIONS }).positionals[0];
  } catch {
    return undefined;
  }
}

export async function runMcpCommand(args: string[], io: McpCommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: MCP_OPTIONS });
  } catch (err) {
    const guess = flagSuggestion(errorText(err), MCP_OPTIONS);
    return usage(io, `${errorText(err).split("\n")[0].split(". ")[0]}${guess ? `; ${guess}` : ""}`);
  }
  const [sub, ...rest] = parsed.positionals;
  const json = parsed.values.json === true;
  if (parsed.values.help || sub === undefined) {
    io.stdout(MCP_HELP);
    return sub === undefined && !parsed.values.help ? EXIT.usage : EXIT.ok;
  }
  const out = (human: string, data: unknown) =>
    io.stdout(json ? JSON.stringify(data) + "\n" : human);
  switch (sub) {
    case "list":
      if (rest.length > 0) return usage(io, "`list` takes no arguments");
      return await list(io, out);
    case "tools":
    case "ping": {
      if (rest.length > 1) return usage(io, `\`${sub}\` takes at most one SERVER`);
      const names = pick(io, rest[0]);
      if (!names) return EXIT.usage;
      return sub === "tools" ? await tools(io, names, out) : await ping(io, names, out);
    }
    case "call":
      return await call(io, rest, out);
    case "login":
    case "logout": {
      if (rest.length !== 1) return usage(io, `usage: mcp ${sub} SERVER`);
      if (!pick(io, rest[0])) return EXIT.usage;
      const auth = await import("./mcp_login.ts");
      return sub === "login"
        ? await auth.login(io, rest[0], parsed.values["open-with"])
        : await auth.logout(io, rest[0]);
    }
    default: {
      const guess = didYouMean(sub, ["list", "tools", "ping", "call", "login", "logout"]);
      return usage(io, `unknown mcp command "${sub}"${guess ? `; ${guess}` : ""}`);
    }
  }
}

type Out = (human: string, data: unknown) => void;

function usage(io: McpCommandIo, message: string): number {
  io.stderr(`mopac: ${message}\n${MCP_HELP}`);
  return EXIT.usage;
}

/** The servers a subcommand works on; undefined (after a message) for an unknown name. */
function pick(io: McpCommandIo, server: string | undefined): string[] | undefined {
  if (server === undefined) return Object.keys(io.servers);
  if (!(server in io.servers)) {
    const known = Object.keys(io.servers).join(", ") || "none configured";
    io.stderr(`mopac: unknown MCP server "${server}" (known: ${known})\n`);
    return undefined;
  }
  return [server];
}

async function withServers<T>(
  io: McpCommandIo,
  names: string[],
  fn: (m: McpManager) => Promise<T>,
): Promise<T> {
  const subset = Object.fromEntries(names.map((n) => [n, io.servers[n]]));
  // When it cannot be made, each server's log says so and the command goes on.
  if (io.dataDir && names.length > 0) await ensureDataDir(io.dataDir).catch(() => {});
  const manager = createMcpManager(
    subset,
    io.manager ?? {
      logDir: io.logDir,
      log: (line) => io.stderr(`${line}\n`),
      oauth: { dir: io.oauthDir ?? "", clientName: "mopac" },
    },
  );
  try {
    await manager.start();
    return await fn(manager);
  } finally {
    await manager.close();
  }
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n") +
    "\n";
}

async function list(io: McpCommandIo, out: Out): Promise<number> {
  return await withServers(io, Object.keys(io.servers), (m) => {
    const servers = m.statuses().map((s) => ({
      ...s,
      type: transportKind(io.servers[s.name]),
      required: io.servers[s.name].required === true,
    }));
    const rows = [["NAME", "TYPE", "STATUS", "TOOLS", "ERROR"]];
    for (const s of servers) {
      rows.push([s.name, s.type, s.status, String(s.tools), s.error ?? ""]);
    }
    out(servers.length ? table(rows) : "no MCP servers configured\n", { servers });
    const requiredDown = servers.some((s) => s.required && s.status !== "connected");
    return Promise.resolve(requiredDown ? EXIT.tool : EXIT.ok);
  });
}

async function tools(io: McpCommandIo, names: string[], out: Out): Promise<number> {
  return await withServers(io, names, (m) => {
    const failed = m.statuses().filter((s) => s.status === "failed");
    for (const s of failed) io.stderr(`mopac: MCP server "${s.name}" failed: ${s.error}\n`);
    const list = m.tools().map((t) => ({
      server: t.mcp!.server,
      tool: t.mcp!.tool,
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
    const human = list.map((t) => `${t.name}  ${t.description.split("\n")[0]}\n`).join("");
    out(human || "no tools\n", { tools: list });
    return Promise.resolve(failed.length > 0 ? EXIT.tool : EXIT.ok);
  });
}

async function ping(io: McpCommandIo, names: string[], out: Out): Promise<number> {
  return await withServers(io, names, async (m) => {
    const results = await Promise.all(
      m.statuses().map(async (s) => {
        if (s.status === "disabled") return { name: s.name, status: "disabled" };
        if (s.status === "failed") return { name: s.name, status: "failed", error: s.error };
        const t0 = performance.now();
        try {
          await m.connection(s.name)!.ping();
          return { name: s.name, status: "ok", ms: Math.round(performance.now() - t0) };
        } catch (err) {
          return { name: s.name, status: "failed", error: errorText(err) };
        }
      }),
    );
    const rows = [["NAME", "STATUS", "TIME", "ERROR"]];
    for (const r of results) {
      rows.push([r.name, r.status, r.ms === undefined ? "" : `${r.ms} ms`, r.error ?? ""]);
    }
    out(results.length ? table(rows) : "no MCP servers configured\n", { servers: results });
    const explicitDisabled = names.length === 1 && results[0]?.status === "disabled";
    return results.some((r) => r.status === "failed") || explicitDisabled ? EXIT.tool : EXIT.ok;
  });
}

async function call(io: McpCommandIo, rest: string[], out: Out): Promise<number> {
  const [server, tool, rawArgs, ...extra] = rest;
  if (!server || !tool || extra.length > 0) return usage(io, "usage: mcp call SERVER TOOL [JSON]");
  if (!pick(io, server)) return EXIT.usage;
  let args: Record<string, unknown> = {};
  if (rawArgs !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(rawArgs);
    } catch (err) {
      return usage(io, `the arguments are not valid JSON: ${errorText(err)}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return usage(io, "the arguments must be a JSON object");
    }
    args = value as Record<string, unknown>;
  }
  return await withServers(io, [server], async (m) => {
    const status = m.statuses()[0];
    if (status.status !== "connected") {
      io.stderr(`mopac: MCP server "${server}" is ${status.status}: ${status.error ?? ""}\n`);
      return EXIT.tool;
    }
    // Accept the model-facing name too (mcp_<server>_<tool>).
    const known = m.tools().find((t) => t.name === tool)?.mcp?.tool ?? tool;
    try {
      const result = await m.connection(server)!.callTool(known, args);
      const output = mapCallResult(result, false);
      out(output.content.endsWith("\n") ? output.content : `${output.content}\n`, result);
      return output.is_error ? EXIT.tool : EXIT.ok;
    } catch (err) {
      io.stderr(`mopac: ${errorText(err)}\n`);
      return EXIT.tool;
    }
  });
}
