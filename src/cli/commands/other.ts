/**
 * The commands around a run: sessions, models, mcp, config, schema and sandbox.
 * Each loads only what it needs.
 */
import { resolve } from "node:path";
import type { Io } from "../io.ts";
import { parseFlags, parseRunArgs } from "../args.ts";
import { EXIT } from "../exit_codes.ts";
import { MAIN_HELP } from "../help.ts";
import { UsageError } from "../../util/errors.ts";
import { readEnv } from "../../util/env.ts";
import { runSecrets } from "../../secrets/sources.ts";
import { configJsonSchema, loadConfig, type LoadedConfig, logsDir } from "../../config/mod.ts";

const COMMON = {
  cwd: { type: "string" },
  config: { type: "string" },
  "data-dir": { type: "string" },
} as const;

/** Takes --cwd, --config and --data-dir out of args, wherever they stand. */
function splitCommon(args: string[]): { rest: string[]; load: () => Promise<LoadedConfig> } {
  const rest: string[] = [];
  const common: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.split("=")[0];
    if (name === "--cwd" || name === "--config" || name === "--data-dir") {
      common.push(a);
      if (!a.includes("=")) {
        const value = args[++i];
        if (value === undefined || value.startsWith("-")) {
          throw new UsageError(`${name} needs a value`, { hint: `write ${name} PATH` });
        }
        common.push(value);
      }
    } else rest.push(a);
  }
  const { values } = parseFlags(common, COMMON, "help");
  return {
    rest,
    load: () =>
      loadConfig({
        cwd: resolve(values.cwd ?? Deno.cwd()),
        configFile: values.config,
        dataDir: values["data-dir"],
        env: readEnv,
      }),
  };
}

export async function runOtherCommand(command: string, args: string[], io: Io): Promise<number> {
  // These have no help text of their own: --help shows the overview instead of failing.
  const plain = ["models", "config", "schema", "sandbox"];
  if (plain.includes(command) && (args.includes("--help") || args.includes("-h"))) {
    io.out(MAIN_HELP);
    return EXIT.ok;
  }
  const { rest, load } = splitCommon(args);
  const stdout = (s: string) => io.out(s);
  const stderr = (s: string) => io.err(s);
  switch (command) {
    case "sessions": {
      const { runSessionsCommand } = await import("./sessions.ts");
      return runSessionsCommand(rest, { stdout, stderr, dataDir: (await load()).dataDir });
    }
    case "mcp": {
      const loaded = await load();
      const { runMcpCommand } = await import("./mcp.ts");
      return runMcpCommand(rest, {
        stdout,
        stderr,
        servers: loaded.config.mcp ?? {},
        logDir: logsDir(loaded.dataDir),
      });
    }
    case "models":
      return modelsCommand(rest, await load(), io);
    case "config":
      return configCommand(rest, await load(), io);
    case "schema":
      io.out(JSON.stringify(configJsonSchema(), null, 2) + "\n");
      return EXIT.ok;
    case "sandbox":
      return sandboxCommand(args, io);
    default:
      throw new UsageError(`unknown command '${command}'`, {
        hint: "run 'mopac --help' for the commands",
      });
  }
}

async function modelsCommand(args: string[], loaded: LoadedConfig, io: Io): Promise<number> {
  const { values } = parseFlags(args, { json: { type: "boolean" } }, "models");
  const { listModels, listProviders } = await import("../../catalog/mod.ts");
  const ctx = { config: loaded.config, env: readEnv };
  const providers = listProviders(ctx);
  const models = listModels(ctx);
  if (values.json) {
    io.out(JSON.stringify({ providers, models }, null, 2) + "\n");
    return EXIT.ok;
  }
  for (const p of providers) {
    io.out(`${p.id}  ${p.usable ? "ready" : "not ready"}  ${p.status}\n`);
    for (const m of models.filter((m) => m.provider_id === p.id)) {
      const ctxw = m.context_window ? `${Math.round(m.context_window / 1000)}k` : "?";
      const price = `$${m.pricing.input}/$${m.pricing.output} per 1M`;
      io.out(`  ${m.ref}  ${ctxw}  ${price}\n`);
    }
  }
  return EXIT.ok;
}

function configCommand(args: string[], loaded: LoadedConfig, io: Io): number {
  const { values, positionals } = parseFlags(
    args,
    { sources: { type: "boolean" }, json: { type: "boolean" } },
    "config",
  );
  switch (positionals[0] ?? "show") {
    case "show":
      if (values.sources) {
        for (const { path, source } of loaded.sources()) io.out(`${path.join(".")}\t${source}\n`);
      } else {
        // Keys, header values and referenced env values never reach stdout.
        const shown = runSecrets(loaded, []).redactValue(loaded.config);
        io.out(JSON.stringify(shown, null, 2) + "\n");
      }
      return EXIT.ok;
    case "path":
      io.out(
        JSON.stringify(
          { files: loaded.files, data_dir: loaded.dataDir, workspace: loaded.workspaceRoot },
          null,
          2,
        ) + "\n",
      );
      return EXIT.ok;
    case "validate":
      io.out(`config is valid (${loaded.files.length} file(s))\n`);
      return EXIT.ok;
    default:
      throw new UsageError(`unknown config command '${positionals[0]}'`, {
        hint: "use mopac config show|path|validate",
      });
  }
}

async function sandboxCommand(args: string[], io: Io): Promise<number> {
  const run = parseRunArgs(args);
  const { resolveRun } = await import("../../app/resolve_run.ts");
  const { sandboxFlags } = await import("../../deno_perms/needs.ts");
  const resolved = await resolveRun(run);
  const flags = sandboxFlags(resolved.needs);
  io.out(flags.join(" ") + "\n");
  return EXIT.ok;
}
