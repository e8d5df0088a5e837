/**
 * The environment of every shell command, built from scratch (the child starts
 * with `clearEnv`): the clean base every child of mopac gets (util/child_env.ts),
 * the jail's defaults (package caches), then config `env`, then what earlier
 * commands of the session exported, and last what the jail enforces (TMPDIR,
 * proxy). Provider keys are never among them: names that look like secrets are
 * dropped from everything except config `env`, which passes them on on purpose.
 */
import { cleanBaseEnv, FIXED, INHERITED, SECRET_NAME } from "../../util/child_env.ts";
import { isShellVariable, riskyVariable } from "../../permission/shell_variables.ts";

export { FIXED, INHERITED };

/** bash's own bookkeeping: never carried over from one command to the next. */
const NOT_CARRIED = /^(PWD|OLDPWD|SHLVL|_)$/;

export interface EnvSources {
  /** Config `env`: passed as given, secrets included. */
  config: Readonly<Record<string, string>>;
  /** Variables exported by earlier commands of the session. */
  session: Readonly<Record<string, string>>;
  /** Reads mopac's own environment (default: Deno.env, skipping what is not granted). */
  read?: (name: string) => string | undefined;
  /** What the OS jail sets (see ShellLauncher.env); absent when commands run unjailed. */
  jail?: {
    defaults: Readonly<Record<string, string>>;
    forced: Readonly<Record<string, string>>;
  };
}

/** The environment before the session's exports: inherited, fixed, then config. */
export function baseEnv(sources: Omit<EnvSources, "session">): Record<string, string> {
  const env = Object.assign(
    cleanBaseEnv(sources.read),
    sources.jail?.defaults,
    sources.config,
    sources.jail?.forced,
  );
  // bash reads these at start (BASH_ENV, SHELLOPTS, exported functions, …) or expands
  // them (PS4 under `set -x`): it starts with them unset, whatever config says.
  for (const name of Object.keys(env)) if (isShellVariable(name)) delete env[name];
  return env;
}

export function buildChildEnv(sources: EnvSources): Record<string, string> {
  const env = baseEnv(sources);
  for (const [name, value] of Object.entries(sources.session)) {
    if (keepsExport(name, sources.config)) env[name] = value;
  }
  return Object.assign(env, sources.jail?.forced);
}

/**
 * Whether an exported variable is carried to later commands. Variables that change
 * what runs (PATH, LD_*, GIT_*, BASH_ENV, …; permission/shell_variables.ts) never are:
 * each call starts from the base again, so an assignment the gate allowed for one
 * call cannot shape the next (or a resumed session under another profile).
 */
export function keepsExport(name: string, config: Readonly<Record<string, string>>): boolean {
  if (NOT_CARRIED.test(name) || riskyVariable(name) !== undefined) return false;
  return !SECRET_NAME.test(name) || Object.hasOwn(config, name);
}

/**
 * The part of a command's final environment to remember for the session: what
 * differs from the base the next command would get anyway.
 */
export function sessionExports(
  finalEnv: Readonly<Record<string, string>>,
  base: Readonly<Record<string, string>>,
  config: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(finalEnv)) {
    if (base[name] !== value && keepsExport(name, config)) out[name] = value;
  }
  return out;
}
