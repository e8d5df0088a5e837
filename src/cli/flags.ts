/**
 * Flags, parsed with node:util and checked: those of `mopac run` (DESIGN §1), and
 * --cwd, --config and --data-dir, which every command that reads config takes.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { resolve } from "node:path";
import { UsageError } from "../util/errors.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { Io } from "./io.ts";
import type { OutputFormat } from "./render.ts";
import { type OnDeny, parseOnDeny } from "../agent/limits.ts";
import { type ColorMode, parseColorMode } from "./color.ts";
import { flagSuggestion } from "./suggest.ts";
import { CI_RUN_OPTIONS, type CiRunArgs, ciRunArgs, takeSettings } from "./ci_flags.ts";

export interface RunArgs extends CiRunArgs {
  prompt: string[];
  model?: string;
  smallModel?: string;
  agent?: string;
  continue: boolean;
  session?: string;
  output: OutputFormat;
  quiet: boolean;
  verbose: boolean;
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  timeout?: string;
  onDeny: OnDeny;
  tools?: string[];
  outputSchema?: string;
  dryRun: boolean;
  record?: string;
  replay?: string;
  ephemeral: boolean;
  cwd?: string;
  dataDir?: string;
  config?: string;
  sandbox?: "on" | "off";
  trustProject: boolean;
  /** `--no-stdin`: never read stdin into the prompt. */
  noStdin: boolean;
  /** `--output-last-message FILE`: the final answer goes to FILE too (empty on failure). */
  outputLastMessage?: string;
  color: ColorMode;
}

export const RUN_OPTIONS = {
  model: { type: "string", short: "m" },
  "small-model": { type: "string" },
  agent: { type: "string", short: "a" },
  continue: { type: "boolean", short: "C" },
  session: { type: "string", short: "s" },
  "output-format": { type: "string", short: "o" },
  quiet: { type: "boolean", short: "q" },
  verbose: { type: "boolean", short: "v" },
  "max-turns": { type: "string" },
  "max-tokens": { type: "string" },
  "max-cost": { type: "string" },
  timeout: { type: "string" },
  "on-deny": { type: "string" },
  tools: { type: "string" },
  "output-schema": { type: "string" },
  "dry-run": { type: "boolean" },
  record: { type: "string" },
  replay: { type: "string" },
  ephemeral: { type: "boolean" },
  cwd: { type: "string" },
  "data-dir": { type: "string" },
  config: { type: "string" },
  sandbox: { type: "string" },
  "trust-project": { type: "boolean" },
  "no-stdin": { type: "boolean" },
  "output-last-message": { type: "string" },
  color: { type: "string" },
  help: { type: "boolean", short: "h" },
  ...CI_RUN_OPTIONS,
} as const;

/** Wraps parseArgs so its TypeErrors become one-line usage errors. */
export function parseFlags<T extends ParseArgsOptionsConfig>(
  args: string[],
  options: T,
  command: string,
) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs explains over several sentences; one line and a hint is what we print.
    const full = (err as Error).message;
    const msg = full.split("\n")[0].split(". ")[0].replace(/\.$/, "");
    const dashed = /use '(--[a-z-]+)=-XYZ'/.exec(full);
    const guess = flagSuggestion(full, options);
    const hint = dashed
      ? `a value starting with '-' is written ${dashed[1]}=VALUE`
      : `${guess ? `${guess} ` : ""}run 'mopac ${command} --help' for the flags`;
    throw new UsageError(msg, { hint });
  }
}

export function parseRunArgs(args: string[]): RunArgs & { help: boolean } {
  const { values: v, positionals } = parseFlags(args, RUN_OPTIONS, "run");
  const output = (v["output-format"] ?? "text") as OutputFormat;
  if (!["text", "json", "stream-json"].includes(output)) {
    throw new UsageError(`unknown output format '${output}'`, {
      hint: "use -o text, -o json or -o stream-json",
    });
  }
  for (const [name, value] of Object.entries(v)) {
    // Mostly an unset variable (-m "$MODEL"): going on with the default would hide it.
    // An empty --tools is meaningful: no tools.
    if (value === "" && name !== "tools") {
      throw new UsageError(`--${name} needs a value, got an empty string`);
    }
  }
  if (v.sandbox !== undefined && v.sandbox !== "on" && v.sandbox !== "off") {
    throw new UsageError(`--sandbox takes on or off, got '${v.sandbox}'`, {
      hint: "--sandbox off runs the model's commands without the OS jail",
    });
  }
  if (v.continue && v.session !== undefined) {
    throw new UsageError("-C and -s cannot be used together", {
      hint: "use -C for the latest session or -s ID for a given one",
    });
  }
  if (v.ephemeral && (v.continue || v.session !== undefined)) {
    throw new UsageError(`--ephemeral cannot continue a session (${v.continue ? "-C" : "-s"})`, {
      hint: "an ephemeral run neither reads nor keeps sessions; drop one of the two",
    });
  }
  return {
    help: v.help === true,
    prompt: positionals,
    model: v.model,
    smallModel: v["small-model"],
    agent: v.agent,
    continue: v.continue === true,
    session: v.session,
    output,
    quiet: v.quiet === true,
    verbose: v.verbose === true,
    maxTurns: positiveInt(v["max-turns"], "--max-turns"),
    maxTokens: positiveInt(v["max-tokens"], "--max-tokens"),
    maxCost: positiveNumber(v["max-cost"], "--max-cost"),
    timeout: v.timeout,
    onDeny: parseOnDeny(v["on-deny"]),
    tools: v.tools?.split(",").map((s) => s.trim()).filter((s) => s !== ""),
    outputSchema: v["output-schema"],
    dryRun: v["dry-run"] === true,
    record: v.record,
    replay: v.replay,
    ephemeral: v.ephemeral === true,
    cwd: v.cwd,
    dataDir: v["data-dir"],
    config: v.config,
    sandbox: v.sandbox as "on" | "off" | undefined,
    trustProject: v["trust-project"] === true,
    noStdin: v["no-stdin"] === true,
    outputLastMessage: v["output-last-message"],
    color: parseColorMode(v.color),
    ...ciRunArgs(v),
  };
}

/**
 * The output format argv asks for, read without parsing the rest: a run whose flags
 * do not parse still owes json consumers a `result` object. Text unless a valid
 * `-o`/`--output-format` value is found (the last one wins, as in parsing).
 */
export function outputFormatOf(argv: readonly string[]): OutputFormat {
  let format: OutputFormat = "text";
  for (let i = 0; i < argv.length && argv[i] !== "--"; i++) {
    const a = argv[i];
    let value: string | undefined;
    if (a === "-o" || a === "--output-format") value = argv[++i];
    else if (a.startsWith("--output-format=")) value = a.slice("--output-format=".length);
    else if (/^-o[^-]/.test(a)) value = a.slice(2).replace(/^=/, "");
    if (value === "text" || value === "json" || value === "stream-json") format = value;
  }
  return format;
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new UsageError(`${flag} needs a positive whole number, got '${value}'`);
  }
  return n;
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`${flag} needs a positive number, got '${value}'`);
  }
  return n;
}

export const COMMON_OPTIONS = {
  cwd: { type: "string" },
  config: { type: "string" },
  "data-dir": { type: "string" },
  "trust-project": { type: "boolean" },
  /** `-c KEY=VALUE` (ci_flags.ts takes it out of the arguments wherever it stands). */
  set: CI_RUN_OPTIONS.set,
} as const;

/**
 * Takes --cwd, --config, --data-dir, --trust-project and `-c KEY=VALUE` out of args,
 * wherever they stand. `load` reads the config they describe and, given `io`, says on stderr what an
 * untrusted project's config asked for in vain.
 */
export function splitCommon(
  args: string[],
  io?: Pick<Io, "err">,
): { rest: string[]; load: () => Promise<LoadedConfig> } {
  const rest: string[] = [];
  const common: string[] = [];
  const { rest: others, settings } = takeSettings(args);
  args = others;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.split("=")[0];
    if (name === "--trust-project") {
      common.push(a);
    } else if (name === "--cwd" || name === "--config" || name === "--data-dir") {
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
  const { values } = parseFlags(common, COMMON_OPTIONS, "help");
  return {
    rest,
    load: async () => {
      // Loaded only when a command reads config: it brings the catalog along.
      const { loadRunConfig, projectNotice, commandEnv } = await import("../app/load_config.ts");
      const loaded = await loadRunConfig({
        cwd: resolve(values.cwd ?? Deno.cwd()),
        configFile: values.config,
        dataDir: values["data-dir"],
        env: commandEnv,
        trustProject: values["trust-project"] === true,
        settings,
      });
      const notice = projectNotice(loaded);
      if (notice && io) io.err(`${notice}\n`);
      return loaded;
    },
  };
}
