/**
 * Variables that change what a command runs rather than what it works on. An
 * assignment to one of them (`PS4='$(…)'; set -x`, `GIT_CONFIG_COUNT=1 … git status`,
 * `PATH=./x:$PATH npm test`, `npm_config_global=true npm i`) can turn an allowed
 * command into any program, so the shell policy lets such an assignment through only
 * when a `bash.allow` pattern names it (`"PATH=*"`, `"GIT_DIR=* git status"`), and
 * the bash tool never carries them from one call to the next.
 *
 * Two groups: `shell` variables bash itself acts on (startup files, prompts that are
 * expanded, options, exported functions); bash starts with these unset, whatever
 * any source says. `program` variables are read by the programs a command starts
 * (the loader, git, package managers, interpreters, make, pagers and editors, proxies).
 */

export type RiskyVariableGroup = "shell" | "program";

/** Variables bash acts on: the spawn environment never holds them. */
const SHELL_EXACT = new Set(
  (
    "BASH_ENV ENV SHELLOPTS BASHOPTS PS0 PS1 PS2 PS3 PS4 PROMPT_COMMAND BASH_XTRACEFD " +
    "CDPATH GLOBIGNORE EXECIGNORE BASH_LOADABLES_PATH BASH_COMPAT INPUTRC HISTFILE " +
    "HISTCONTROL IFS POSIXLY_CORRECT"
  ).split(" "),
);
/** bash's exported functions arrive as `BASH_FUNC_name%%` (and older `name=() {` forms). */
const SHELL_PATTERN = /^BASH_FUNC_/;

/** Variables the programs a command starts act on. */
const PROGRAM_EXACT = new Set(
  (
    "PATH HOME SHELL EDITOR VISUAL PAGER MANPAGER BROWSER LESSOPEN LESSCLOSE TERMINFO " +
    "SSH_ASKPASS SUDO_ASKPASS TAR_OPTIONS GZIP BZIP2 XZ_OPT ZSTD_CLEVEL MAKEFLAGS MAKEFILES " +
    "MFLAGS GNUMAKEFLAGS CC CXX CPP LD AR AS FC RUSTC RUSTC_WRAPPER RUSTDOC RUSTFLAGS " +
    "RUSTDOCFLAGS CLASSPATH JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS MAVEN_OPTS " +
    "GRADLE_OPTS PERL5OPT PERL5LIB PERLLIB PERL5DB RUBYOPT RUBYLIB BUNDLE_GEMFILE " +
    "ZDOTDIR DENO_INSTALL_ROOT COMPOSER_HOME SSL_CERT_FILE SSL_CERT_DIR " +
    "CURL_CA_BUNDLE REQUESTS_CA_BUNDLE NODE_OPTIONS NODE_PATH NODE_EXTRA_CA_CERTS " +
    "NODE_REPL_EXTERNAL_MODULE NODE_TLS_REJECT_UNAUTHORIZED PYTHONPATH PYTHONSTARTUP " +
    "PYTHONHOME PYTHONUSERBASE PYTHONEXECUTABLE PYTHONWARNINGS PYTHONBREAKPOINT " +
    "PYTHONINSPECT PYTHONPLATLIBDIR GOFLAGS GOROOT GOPATH GOBIN GOTOOLCHAIN GOENV GOPROXY " +
    "GOINSECURE GONOSUMDB GONOSUMCHECK GOPRIVATE GOWORK DOCKER_HOST DOCKER_CONFIG " +
    "DOCKER_CONTEXT DOCKER_CERT_PATH KUBECONFIG"
  ).split(" "),
);
/** Families by prefix (the loader, git, package managers, interpreters, toolchains). */
const PROGRAM_PATTERN = new RegExp(
  "^(" +
    [
      "LD_",
      "DYLD_",
      "GIT_",
      "NPM_CONFIG_",
      "YARN_",
      "PNPM_",
      "BUN_",
      "COREPACK_",
      "PIP_",
      "UV_",
      "PIPX_",
      "CONDA",
      "VIRTUAL_ENV",
      "GEM_",
      "CARGO",
      "RUSTUP_",
      "XDG_CONFIG_",
      "XDG_DATA_",
    ].join("|") +
    ")",
  "i",
);
/** Proxy settings change where the network goes (`http_proxy`, `NO_PROXY`, …). */
const PROXY_PATTERN = /^(all|https?|ftp|no|socks)_proxy$/i;

/** git variables that only name who and when: `GIT_AUTHOR_NAME=… git commit` is ordinary. */
const GIT_IDENTITY = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;
/** Where a package manager keeps its download cache (the jail points them into its own folder). */
const CACHE_DIRS =
  /^(PIP_CACHE_DIR|npm_config_cache|npm_config_store_dir|YARN_CACHE_FOLDER|BUN_INSTALL_CACHE_DIR|UV_CACHE_DIR)$/i;

/** The group of a variable that changes what runs, or undefined for an ordinary one. */
export function riskyVariable(name: string): RiskyVariableGroup | undefined {
  if (SHELL_EXACT.has(name) || SHELL_PATTERN.test(name) || name.includes("%")) return "shell";
  if (GIT_IDENTITY.test(name) || CACHE_DIRS.test(name)) return undefined;
  if (PROGRAM_EXACT.has(name) || PROGRAM_PATTERN.test(name) || PROXY_PATTERN.test(name)) {
    return "program";
  }
  return undefined;
}

/** bash acts on it at start or while running: never in a spawn environment. */
export function isShellVariable(name: string): boolean {
  return riskyVariable(name) === "shell";
}
