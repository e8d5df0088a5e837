/**
 * The run flags CI users know from `claude -p` and `codex exec`, kept apart from
 * flags.ts so each stays one concern: their parseArgs options, and their checked
 * values. Each is the operator's, like every flag (docs/untrusted-code.md).
 */
import { UsageError } from "../util/errors.ts";

export const CI_RUN_OPTIONS = {
  /** `-c KEY=VALUE`, repeatable: one config value for this run (config/settings.ts). */
  set: { type: "string", short: "c", multiple: true },
} as const;

/** What the CI flags ask of a run. */
export interface CiRunArgs {
  /** `-c KEY=VALUE` settings as typed, in order (later ones win). */
  settings: string[];
}

type Values = {
  [K in keyof typeof CI_RUN_OPTIONS]?: (typeof CI_RUN_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof CI_RUN_OPTIONS)[K] extends { type: "boolean" } ? boolean
    : string;
};

export function ciRunArgs(v: Values): CiRunArgs {
  return { settings: v.set ?? [] };
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
