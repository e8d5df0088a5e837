/**
 * The run flags CI users know from `claude -p` and `codex exec`, kept apart from
 * flags.ts so each stays one concern: their parseArgs options, and their checked
 * values. Each is the operator's, like every flag (docs/untrusted-code.md).
 */
import { UsageError } from "../util/errors.ts";

export const CI_RUN_OPTIONS = {
  /** `-c KEY=VALUE`, repeatable: one config value for this run (config/settings.ts). */
  set: { type: "string", short: "c", multiple: true },
  /** `--session-id UUID`: the id of the new session (fails when it exists). */
  "session-id": { type: "string" },
  /** `--fork`: with -C or -s, continue in a new session that copies the history. */
  fork: { type: "boolean" },
  /** `--add-dir DIR`, repeatable: another folder the file tools and the OS jail may write. */
  "add-dir": { type: "string", multiple: true },
  /** `--fallback-model P/M`: retry a turn once on this model when the main one fails for good. */
  "fallback-model": { type: "string" },
  /** `-f FILE` (`-` for stdin): the prompt from a file instead of piped stdin. */
  "prompt-file": { type: "string", short: "f" },
  /** `--system-prompt-file FILE`: replaces mopac's base instructions. */
  "system-prompt-file": { type: "string" },
  /** `--append-system-prompt TEXT`: added at the end of the system prompt. */
  "append-system-prompt": { type: "string" },
  /** `-i FILE`, repeatable: an image attached to the prompt. */
  image: { type: "string", short: "i", multiple: true },
  /** `--input-format text|stream-json`: stream-json reads user messages as JSON lines on stdin. */
  "input-format": { type: "string" },
  /** `--allow RULE` / `--deny RULE`, repeatable: the profile's rules for one run (flag_rules.ts). */
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
} as const;

/** What the CI flags ask of a run. */
export interface CiRunArgs {
  /** `-c KEY=VALUE` settings as typed, in order (later ones win). */
  settings: string[];
  sessionId?: string;
  fork: boolean;
  /** `--add-dir` folders as typed (relative to --cwd). */
  addDirs: string[];
  fallbackModel?: string;
  promptFile?: string;
  /** `-i` image files as typed. */
  images: string[];
  systemPromptFile?: string;
  appendSystemPrompt?: string;
  /** `stream-json`: a multi-turn run fed JSON lines on stdin (stream_input.ts). */
  inputFormat: "text" | "stream-json";
  /** `--allow` and `--deny` rules as typed. */
  allowRules: string[];
  denyRules: string[];
}

/** How errors name the flags users mostly write short. */
const SHORT_NAMES: Record<string, string> = { set: "-c", "prompt-file": "-f", image: "-i" };

type Values = {
  [K in keyof typeof CI_RUN_OPTIONS]?: (typeof CI_RUN_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof CI_RUN_OPTIONS)[K] extends { type: "boolean" } ? boolean
    : string;
};

/** The checked values; `v` holds the other run flags too (some are checked against them). */
export function ciRunArgs(
  v: Values & { continue?: boolean; session?: string; "output-format"?: string },
): CiRunArgs {
  for (const [name, option] of Object.entries(CI_RUN_OPTIONS)) {
    const given = v[name as keyof Values];
    // An empty value is mostly an unset variable (--add-dir "$DIR"): never the default.
    if (option.type === "string" && (Array.isArray(given) ? given.includes("") : given === "")) {
      throw new UsageError(
        `${SHORT_NAMES[name] ?? `--${name}`} needs a value, got an empty string`,
      );
    }
  }
  const inputFormat = v["input-format"] ?? "text";
  if (inputFormat !== "text" && inputFormat !== "stream-json") {
    throw new UsageError(`--input-format takes text or stream-json, got '${inputFormat}'`);
  }
  const output = v["output-format"];
  if (inputFormat === "stream-json" && output !== undefined && output !== "stream-json") {
    throw new UsageError(`--input-format stream-json needs -o stream-json, got -o ${output}`, {
      hint: "leave -o out: stream-json input gives stream-json output",
    });
  }
  const resumes = v.continue === true || v.session !== undefined;
  if (v.fork && !resumes) {
    throw new UsageError("--fork needs -C or -s: it copies an existing session", {
      hint: "mopac run -s ID --fork PROMPT continues session ID in a new session",
    });
  }
  if (v["session-id"] !== undefined && resumes && !v.fork) {
    throw new UsageError("--session-id names a new session; -C and -s continue an existing one", {
      hint: "add --fork to continue into a new session with this id",
    });
  }
  return {
    settings: v.set ?? [],
    sessionId: sessionIdFlag(v["session-id"]),
    fork: v.fork === true,
    addDirs: v["add-dir"] ?? [],
    fallbackModel: v["fallback-model"],
    promptFile: v["prompt-file"],
    images: v.image ?? [],
    systemPromptFile: v["system-prompt-file"],
    appendSystemPrompt: v["append-system-prompt"],
    inputFormat,
    allowRules: v.allow ?? [],
    denyRules: v.deny ?? [],
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Any UUID (as claude --session-id takes), stored in lower case like mopac's own ids. */
function sessionIdFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const id = value.trim().toLowerCase();
  if (!UUID_RE.test(id)) {
    throw new UsageError(`--session-id needs a UUID, got '${value}'`, {
      hint: "e.g. --session-id $(uuidgen)",
    });
  }
  return id;
}

/**
 * Takes `-c KEY=VALUE` (also `-cKEY=VALUE`, `--set KEY=VALUE`, `--set=KEY=VALUE`)
 * out of `args` wherever it stands: every command that reads config takes it.
 */
export function takeSettings(args: string[]): { rest: string[]; settings: string[] } {
  const rest: string[] = [];
  const settings: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (a === "-c" || a === "--set") {
      const value = args[++i];
      if (value === undefined) {
        throw new UsageError(`${a} needs a value`, { hint: "write -c KEY=VALUE" });
      }
      settings.push(value);
    } else if (a.startsWith("--set=")) settings.push(a.slice("--set=".length));
    else if (a.startsWith("-c") && !a.startsWith("--")) settings.push(a.slice(2));
    else rest.push(a);
  }
  return { rest, settings };
}
