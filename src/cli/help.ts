/** Help and version texts; kept free of heavy imports so `--help` starts fast. */
import { VERSION } from "../util/version.ts";

export { VERSION };

export const MAIN_HELP = `mopac ${VERSION} — a headless coding agent for OpenAI-compatible models

Usage:
  mopac run [flags] [PROMPT...]   run the agent on PROMPT (piped stdin is prepended)
  mopac sessions list|show|export|rm|search|reindex
  mopac models [--json]           the catalog and configured providers
  mopac mcp list|tools|ping|call  configured MCP servers
  mopac config show|path|validate
  mopac schema                    JSON Schema of the config file
  mopac sandbox [--check]         the narrowest Deno permission flags for this config;
                                  --check: the OS jail's backend, version and a probe
  mopac --version | --help

Every command that reads config takes --cwd DIR, --config FILE, --data-dir DIR and
--trust-project (the project's own config files are untrusted and can only narrow
unless given this, MOPAC_TRUST_PROJECT=1, or trusted_projects in your own config).
Run 'mopac run --help' for the flags of a run.
Exit codes: 0 done, 1 internal error, 2 usage/config, 3 permission gate, 4 budget,
5 model/provider or loop, 6 tool infrastructure or data dir mid-run, 130/143 interrupted.
`;

export const RUN_HELP = `Usage: mopac run [flags] [PROMPT...]

  -m, --model P/M          large model ("provider/model", or a bare id if unique)
      --small-model P/M    small model (titles, summaries, sub-agents)
  -a, --agent NAME         agent profile (default "coder")
  -C, --continue           continue the most recently updated session
  -s, --session ID         continue a session by id or unique prefix
  -o, --output-format F    text (default) | json | stream-json
  -q, --quiet              no progress on stderr (errors still)
  -v, --verbose            more progress on stderr: each tool call's input
      --color WHEN         auto (default: on a terminal, unless NO_COLOR) | always | never
      --max-turns N        stop after N model requests (exit 4)
      --max-tokens N       stop after N tokens in and out (exit 4)
      --max-cost USD       stop after this cost (exit 4)
      --timeout DURATION   stop after this time, e.g. 90s, 10m (exit 4)
      --on-deny MODE       continue (default) | fail | stop
      --tools LIST         narrow the agent's tools, comma-separated
      --output-schema FILE the final answer must be JSON valid against this schema
      --dry-run            resolve everything and print it; no model call
      --record FILE        record model traffic to a cassette
      --replay FILE        replay a cassette offline
      --ephemeral          keep no session on disk
      --cwd DIR            work in DIR
      --data-dir DIR       keep sessions in DIR (default .mopac at the git root)
      --config FILE        read this config file too (trusted: it is yours)
      --trust-project      use the project's own config files as they are (by default
                           they only narrow: no providers, MCP servers, hooks, env)
      --sandbox off        run the model's commands without the OS jail (default on:
                           bash runs in bubblewrap / sandbox-exec, or the run exits 2)
`;
