/**
 * The environment of every shell command, built from scratch (the child starts
 * with `clearEnv`): a short list of variables programs need to find tools and
 * behave (PATH, HOME, locale, temp dir, toolchain homes) read from mopac's own
 * environment, settings that keep commands non-interactive and plain, the jail's
 * defaults (package caches), then config `env`, then what earlier commands of the
 * session exported, and last what the jail enforces (TMPDIR, proxy). Provider keys are
 * never among them: nothing else is copied, and names that look like secrets are
 * dropped from everything except config `env`, which passes them on on purpose.
 */
import { readEnv } from "../../util/env.ts";

/** Read from mopac's environment when present and readable (unreadable ones are skipped). */
export const INHERITED: readonly string[] = (
  "PATH HOME USER LOGNAME SHELL LANG LANGUAGE LC_ALL LC_CTYPE LC_NUMERIC LC_TIME " +
  "LC_COLLATE LC_MONETARY LC_MESSAGES LC_PAPER LC_NAME LC_ADDRESS LC_TELEPHONE " +
  "LC_MEASUREMENT LC_IDENTIFICATION TMPDIR TMP TEMP TZ CI XDG_CONFIG_HOME " +
  "XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR GOPATH GOROOT GOCACHE " +
  "GOMODCACHE CARGO_HOME RUSTUP_HOME JAVA_HOME DENO_DIR DENO_INSTALL_ROOT NVM_DIR " +
  "PNPM_HOME BUN_INSTALL PYENV_ROOT VIRTUAL_ENV CONDA_PREFIX"
).split(" ");

/**
 * Always set, before config `env` (which may change them): no pagers, no editors,
 * no credential prompts (nothing can answer them), no colour codes in the output.
 * TERM is "dumb" because output goes to a pipe that the model reads.
 */
export const FIXED: Readonly<Record<string, string>> = {
  TERM: "dumb",
  NO_COLOR: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
};

const FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Names that look like credentials. */
const SECRET_NAME =
  /(^|_)(API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/**
 * Names never carried over from one command to the next: bash's own, and loader
 * variables (Deno refuses to spawn with LD_PRELOAD under a narrow --allow-run).
 */
const NOT_CARRIED = /^(PWD|OLDPWD|SHLVL|_|LD_.*|DYLD_.*)$/;

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
  const read = sources.read ?? readEnv;
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = read(name);
    if (value !== undefined && !SECRET_NAME.test(name)) env[name] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  Object.assign(env, FIXED, sources.jail?.defaults, sources.config, sources.jail?.forced);
  return env;
}

export function buildChildEnv(sources: EnvSources): Record<string, string> {
  const env = baseEnv(sources);
  for (const [name, value] of Object.entries(sources.session)) {
    if (keepsExport(name, sources.config)) env[name] = value;
  }
  return Object.assign(env, sources.jail?.forced);
}

/** Whether an exported variable is carried to later commands. */
export function keepsExport(name: string, config: Readonly<Record<string, string>>): boolean {
  if (NOT_CARRIED.test(name)) return false;
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
