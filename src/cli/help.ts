/** Help and version texts; kept free of heavy imports so `--help` starts fast. */
import { VERSION } from "../util/version.ts";

export { VERSION };

export const MAIN_HELP = `mopac ${VERSION} — a headless coding agent for OpenAI-compatible models

Usage: mopac [--cwd DIR] [--config FILE] [--data-dir DIR] [--trust-project] COMMAND ...

  mopac run [flags] [PROMPT...]   run the agent on PROMPT (piped stdin is prepended)
  mopac sessions list|show|export|rm|search|reindex
  mopac models [FILTER] [--json]  the catalog and configured providers
  mopac mcp list|tools|ping|call|login|logout|add|remove
                                  configured MCP servers; log in to one behind OAuth;
                                  add or remove one in your user config
  mopac config show|path|validate
  mopac schema                    JSON Schema of the config file
  mopac sandbox [--check]         the narrowest Deno permission flags for this config;
                                  --check: the OS jail's backend, version and a probe
  mopac completions bash|zsh|fish a completion script for your shell
  mopac doctor [--json]           check Deno, permissions, config, the jail, providers
                                  and MCP servers; say what to fix (exit 0: all works)
  mopac --version | --help

Every command that reads config takes --cwd DIR, --config FILE, --data-dir DIR,
-c KEY=VALUE (one config value, repeatable; --set before the command) and
--trust-project, before or after the command (the project's own config files are
untrusted and can only narrow unless given this, MOPAC_TRUST_PROJECT=1, or
trusted_projects in your own config).
Run 'mopac COMMAND --help' (or 'mopac help COMMAND') for the flags of a command.
Exit codes: 0 done, 1 internal error, 2 usage/config, 3 permission gate, 4 budget,
5 model/provider or loop, 6 tool infrastructure or data dir mid-run, 130/143 interrupted.
`;

/** The flags of every command that reads config (also accepted before the command). */
const COMMON_HELP = `
Flags of every command that reads config (also before the command):
      --cwd DIR            work in DIR
      --config FILE        read this config file too (trusted: it is yours)
      --data-dir DIR       the data dir (default .mopac at the git root)
      --trust-project      use the project's own config files as they are
  -c, --set KEY=VALUE      set one config key (repeatable), e.g. -c limits.max_turns=20
  -h, --help               this help
`;

export const RUN_HELP = `Usage: mopac run [flags] [PROMPT...]

  -m, --model P/M          large model ("provider/model", or a bare id if unique)
      --small-model P/M    small model (titles, summaries, sub-agents)
      --fallback-model P/M when the model fails for good (not auth), retry on this one
  -a, --agent NAME         agent profile (default "coder")
  -C, --continue           continue the most recently updated session
  -s, --session ID         continue a session by id or unique prefix
      --fork               with -C or -s: continue in a new session copying the history
      --session-id UUID    the id of the new session (exit 2 when it exists)
  -o, --output-format F    text (default) | json | stream-json
      --input-format F     text (default) | stream-json: user messages as JSON lines on
                           stdin, one turn each, stream-json out
  -q, --quiet              no progress on stderr (errors still)
  -v, --verbose            more progress on stderr: each tool call's input
      --color WHEN         auto (default: on a terminal, unless NO_COLOR) | always | never
      --max-turns N        stop after N model requests (exit 4)
      --max-tokens N       stop after N tokens in and out (exit 4)
      --max-cost USD       stop after this cost (exit 4)
      --timeout DURATION   stop after this time, e.g. 90s, 10m (exit 4)
      --on-deny MODE       continue (default) | fail | stop
      --tools LIST         narrow the agent's tools, comma-separated
      --add-dir DIR        another folder the file tools and the OS jail may write
                           (repeatable; paths.deny still holds there)
      --allow RULE         extend the profile for this run (TOOL, bash:PATTERN, fetch:HOST),
                           only within its flag_allow; repeatable
      --deny RULE          narrow the profile for this run (TOOL, mcp_* glob, bash:PATTERN,
                           path:GLOB); repeatable
      --output-schema FILE the final answer must be JSON valid against this schema
  -f, --prompt-file FILE   read the prompt from FILE (- for stdin); arguments follow it
      --system-prompt-file FILE
                           replace mopac's base instructions with FILE's text
      --append-system-prompt TEXT
                           add TEXT at the end of the system prompt
  -i, --image FILE         attach an image to the prompt (repeatable; the model must
                           take images)
      --dry-run            resolve everything and print it; no model call
      --record FILE        record model traffic to a cassette
      --replay FILE        replay a cassette offline
      --ephemeral          keep no session on disk
      --no-stdin           never read stdin into the prompt
      --output-last-message FILE
                           write the final answer to FILE too (any output format)
      --cwd DIR            work in DIR
      --data-dir DIR       keep sessions in DIR (default .mopac at the git root)
      --config FILE        read this config file too (trusted: it is yours)
  -c, --set KEY=VALUE      set one config key for this run (repeatable): a dotted KEY,
                           a JSON or plain VALUE, e.g. -c options.request_timeout=120
      --trust-project      use the project's own config files as they are (by default
                           they only narrow: no providers, MCP servers, hooks, env)
      --sandbox off        run the model's commands without the OS jail (default on:
                           bash runs in bubblewrap / sandbox-exec, or the run exits 2)
  -h, --help               this help

A prompt that starts with '-' goes after '--': mopac run -- "-v is wrong".
`;

export const SESSIONS_HELP = `Usage: mopac sessions COMMAND [flags]

  list [--json] [--limit N] [--all]    sessions, newest first: id, status (how the last run
                                       ended, with its exit code), update time, messages,
                                       tokens, cost, title (--all adds sub-agent sessions)
  show ID [--json]                     one session: messages, tool calls and results
  export ID [--format jsonl|markdown]  the whole session (default jsonl)
  rm ID                                delete a session and its sub-agent sessions
  search QUERY [--json] [--limit N]    full-text search over the message text
  reindex                              rebuild index.db from the session files

      --json               JSON instead of a table (list, show, search)
      --limit N            at most N sessions or hits (list, search)
      --all                sub-agent sessions too (list)
      --format F           jsonl (default) or markdown (export)

ID is a full session id, a short id, or a unique prefix of either.
${COMMON_HELP}`;

export const MCP_HELP = `Usage: mopac mcp COMMAND [--json]

  list                      configured servers, their status and tool count
  tools [SERVER]            the tools as the model sees them (name, description)
  ping [SERVER]             connect and ping; exit 6 when one does not answer
  call SERVER TOOL [JSON]   call one tool with a JSON object of arguments;
                            exit 6 when the server is down or the tool returns an error
  login SERVER [--open-with CMD]
                            log in to an OAuth server: prints the URL (or runs CMD URL)
                            and waits for the browser on a loopback callback
  logout SERVER             forget the stored login
  add NAME [options] -- COMMAND [ARGS...]
                            add a stdio server to your user config file, comments kept
  add NAME --url URL [options]
                            add an http (or --type sse) server to your user config file
  remove NAME               remove a server from your user config file

      --open-with CMD      login: run CMD URL instead of printing the URL
      --json               one JSON object instead of a table
      --url URL            add: the server's URL
      --type T             add: http (default) or sse, with --url
      --header KEY=VALUE   add: a request header of a --url server (repeatable)
      --env KEY=VALUE      add: environment of a stdio server (repeatable; "$VAR" expands)
      --env-var NAME       add: pass mopac's own NAME on to a stdio server (repeatable)
      --required           add: a run fails (exit 6) when the server does not start
      --force              add: replace a server of that name
add and remove come right after 'mcp' and edit $XDG_CONFIG_HOME/mopac/mopac.json.
${COMMON_HELP}`;

export const MODELS_HELP = `Usage: mopac models [FILTER] [--json]

The providers mopac knows (the built-in catalog and config), whether each is ready (its
key is set, or it needs none), and their models with context window and price per
million tokens. FILTER keeps the providers and models whose id contains it.

      --json               {providers, models} as JSON
${COMMON_HELP}`;

export const CONFIG_HELP = `Usage: mopac config [show|path|validate] [flags]

  show                      the merged config as JSON, secrets redacted (the default)
  show --sources            every value's path and the file (or env, flag) it came from
  path                      the files read, the data dir, the workspace, project trust
  validate                  'config is valid', or the first error with file:line:col (exit 2)

      --sources            with show: where each value came from
      --json               accepted for scripts; show and path print JSON anyway
${COMMON_HELP}`;

export const SCHEMA_HELP = `Usage: mopac schema

The JSON Schema (draft 2020-12) of the config file, for editors and CI checks.
${COMMON_HELP}`;

/** The flag lines of `mopac run --help`, which `mopac sandbox` takes too. */
const RUN_FLAG_LINES = RUN_HELP.slice(
  RUN_HELP.indexOf("\n\n") + 2,
  RUN_HELP.indexOf("\n\n", RUN_HELP.indexOf("\n\n") + 2),
);

export const SANDBOX_HELP = `Usage: mopac sandbox [--check] [run flags]

Prints the narrowest Deno permission flags a run with these flags and this config needs,
on one line: deno run $(mopac sandbox -a fixer) main.ts run -a fixer "fix the build".
It takes the flags of 'mopac run', since -m, -a, --tools, --record, --replay,
--output-schema, --sandbox and the config flags change what a run needs:

      --check              instead: the OS jail this machine gives the model's commands,
                           its version and a probe (exit 2 when no jail works)
${RUN_FLAG_LINES}
`;

export const DOCTOR_HELP = `Usage: mopac doctor [--json] [run flags]

Checks Deno's version and permissions, the config, the OS jail, every configured
provider (a models list request) and every MCP server, and says what to fix.
Exit 0 only when everything works; otherwise 2 (Deno, config, permissions, jail),
5 (a provider) or 6 (an MCP server), for the first problem found. It takes the flags
of 'mopac run', since they change what a run needs:

      --json               one JSON object: {ok, checks: [{check, ok, detail, fix, code}]}
${RUN_FLAG_LINES}
`;

export const COMPLETIONS_HELP = `Usage: mopac completions bash|zsh|fish

Prints a completion script for the shell. Load it with, for example:
  bash:  source <(mopac completions bash)      (or save it in ~/.local/share/bash-completion/completions/mopac)
  zsh:   mopac completions zsh > "\${fpath[1]}/_mopac"   (then restart zsh)
  fish:  mopac completions fish > ~/.config/fish/completions/mopac.fish

  -h, --help               this help
`;
