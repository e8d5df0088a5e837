/**
 * The clean base environment of every process mopac starts for someone else: bash
 * commands, PreToolUse hooks and stdio MCP servers. A child starts from nothing
 * (`clearEnv`) and gets a short list of variables programs need to find tools and
 * behave (PATH, HOME, locale, temp dir, toolchain homes, TLS trust stores) read from
 * mopac's own environment, plus settings that keep it non-interactive and plain.
 * Provider keys and tokens are never among them: nothing else is copied, and names
 * that look like secrets are dropped even from this list. What a child gets beyond
 * this base, its configuration says explicitly.
 */
import { readEnv } from "./env.ts";

/** Read from mopac's environment when present and readable (unreadable ones are skipped). */
export const INHERITED: readonly string[] = (
  "PATH HOME USER LOGNAME SHELL LANG LANGUAGE LC_ALL LC_CTYPE LC_NUMERIC LC_TIME " +
  "LC_COLLATE LC_MONETARY LC_MESSAGES LC_PAPER LC_NAME LC_ADDRESS LC_TELEPHONE " +
  "LC_MEASUREMENT LC_IDENTIFICATION TMPDIR TMP TEMP TZ CI XDG_CONFIG_HOME " +
  "XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR GOPATH GOROOT GOCACHE " +
  "GOMODCACHE CARGO_HOME RUSTUP_HOME JAVA_HOME DENO_DIR DENO_INSTALL_ROOT NVM_DIR " +
  "PNPM_HOME BUN_INSTALL PYENV_ROOT VIRTUAL_ENV CONDA_PREFIX " +
  "SSL_CERT_FILE SSL_CERT_DIR DENO_CERT NODE_EXTRA_CA_CERTS DENO_TLS_CA_STORE"
).split(" ");

/**
 * Always set: no pagers, no editors, no credential prompts (nothing can answer them),
 * no colour codes in the output. TERM is "dumb" because output goes to a pipe.
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
export const SECRET_NAME =
  /(^|_)(API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** The inherited variables and the fixed settings; `read` defaults to Deno.env, quietly. */
export function cleanBaseEnv(
  read: (name: string) => string | undefined = readEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = read(name);
    if (value !== undefined && !SECRET_NAME.test(name)) env[name] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  return Object.assign(env, FIXED);
}
