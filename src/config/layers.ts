/**
 * The layers config is built from: files (each parsed with its syntax tree),
 * environment variables and command-line flags. A layer knows its name, which is
 * what `config show --sources` prints and what errors outside a file point at.
 */
import { ConfigError, SandboxError } from "../util/errors.ts";
import { parseConfigText, type ParsedFile } from "./jsonc.ts";

export interface Layer {
  /** The file path, `env NAME`, `command line` or `defaults`. */
  name: string;
  value: Record<string, unknown>;
  /** Set for file layers. */
  parsed?: ParsedFile;
}

/**
 * Reads and parses one config file. A missing or (under Deno's sandbox) unreadable
 * optional file is skipped; for a required one (`--config`) both are errors.
 */
export async function readConfigFile(
  file: string,
  required: { flag: string } | false,
): Promise<ParsedFile | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound && !required) return undefined;
    if (err instanceof Deno.errors.NotCapable) {
      if (!required) return undefined;
      throw new SandboxError(
        `cannot read config file ${file} given by ${required.flag}`,
        `--allow-read=${file}`,
      );
    }
    if (err instanceof Deno.errors.NotFound) {
      throw new ConfigError(
        `config file ${file} given by ${required && required.flag} does not exist`,
        {
          hint: "check the path, or leave the flag out to use the usual config files",
        },
      );
    }
    if (err instanceof Deno.errors.IsADirectory || (err as { code?: string }).code === "EISDIR") {
      if (!required) return undefined;
      throw new ConfigError(`config file ${file} is a directory`);
    }
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return parseConfigText(file, stripBom(text));
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Environment variables that set config, each its own layer so sources name the variable. */
const ENV_KEYS: { name: string; path: string[]; kind: "string" | "number" | "bool" }[] = [
  { name: "MOPAC_MODEL", path: ["models", "large", "model"], kind: "string" },
  { name: "MOPAC_SMALL_MODEL", path: ["models", "small", "model"], kind: "string" },
  { name: "MOPAC_AGENT", path: ["options", "default_agent"], kind: "string" },
  { name: "MOPAC_DEBUG", path: ["options", "debug"], kind: "bool" },
  { name: "MOPAC_MAX_TURNS", path: ["limits", "max_turns"], kind: "number" },
  { name: "MOPAC_MAX_TOKENS", path: ["limits", "max_tokens"], kind: "number" },
  { name: "MOPAC_MAX_COST", path: ["limits", "max_cost"], kind: "number" },
  { name: "MOPAC_TIMEOUT", path: ["limits", "timeout"], kind: "string" },
  { name: "MOPAC_SANDBOX", path: ["options", "sandbox"], kind: "string" },
];

/** The names of the environment variables mopac's config reads directly. */
export const CONFIG_ENV_VARS = [
  ...ENV_KEYS.map((k) => k.name),
  "MOPAC_DATA_DIR",
  "MOPAC_CONFIG",
  "MOPAC_TRUST_PROJECT",
];

export function envLayers(env: (name: string) => string | undefined): Layer[] {
  const layers: Layer[] = [];
  for (const key of ENV_KEYS) {
    const raw = env(key.name);
    if (raw === undefined || raw.trim() === "") continue;
    layers.push({ name: `env ${key.name}`, value: nest(key.path, convert(raw.trim(), key.kind)) });
  }
  return layers;
}

function convert(raw: string, kind: "string" | "number" | "bool"): unknown {
  if (kind === "number") return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (kind === "bool") {
    return /^(1|true|yes|on)$/i.test(raw) ? true : /^(0|false|no|off)$/i.test(raw) ? false : raw;
  }
  return raw;
}

export function nest(path: string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) out = { [path[i]]: out };
  return out as Record<string, unknown>;
}

/** Deno's name for every variable of the environment layer (a prefix wildcard). */
export const CONFIG_ENV_PATTERN = "MOPAC_*";
const CONFIG_ENV_FLAG = `--allow-env=${CONFIG_ENV_PATTERN}`;

/**
 * How the loader reads the environment. Optional lookups (HOME, XDG_*) treat a
 * variable the sandbox hides as unset. Mopac's own (MOPAC_*) are config: a budget or
 * a model that quietly disappeared under narrow flags is worse than not starting, so
 * a refused read is a SandboxError naming the flag.
 */
export function layerEnv(env: (name: string) => string | undefined) {
  return (name: string) => {
    try {
      return env(name);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotCapable)) throw err;
      if (CONFIG_ENV_VARS.includes(name)) throw refusedConfigVar(name, err);
      return undefined;
    }
  };
}

function refusedConfigVar(name: string, cause: unknown): SandboxError {
  const key = ENV_KEYS.find((k) => k.name === name);
  const what = key ? `which sets ${key.path.join(".")}` : "which mopac's config reads";
  return new SandboxError(
    `Deno's permissions do not let mopac read the environment variable ${name}, ${what}; ` +
      "config from the environment is never skipped",
    CONFIG_ENV_FLAG,
    { cause },
  );
}
