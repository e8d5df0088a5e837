/** What loading config takes (LoadOptions) and gives (LoadedConfig). */
import type { Config, ConfigInput, DeepPartial } from "./schema.ts";
import type { JsonPath } from "./jsonc.ts";
import type { IgnoredKey, Narrowing } from "./narrowing.ts";

export type ModelRole = "large" | "small";

export interface LoadOptions {
  cwd: string;
  /** `--config FILE`: read above every discovered file; must exist. */
  configFile?: string;
  /** `--data-dir DIR`, relative to the cwd. */
  dataDir?: string;
  /** `-c KEY=VALUE` settings, as typed: each a layer above the environment, below `flags`. */
  settings?: readonly string[];
  /** Values from command-line flags, the top layer. */
  flags?: DeepPartial<ConfigInput>;
  env: (name: string) => string | undefined;
  /** Defaults to $HOME. */
  home?: string;
  /** Defaults to /etc/mopac/mopac.json (tests point it elsewhere). */
  systemFile?: string;
  /** Time limit of each `$(command)` in config; default 10 s. */
  commandTimeoutMs?: number;
  /** `--trust-project`: the project's own config files count like the operator's. */
  trustProject?: boolean;
  /**
   * Why an untrusted project's choice of `models.<role>` cannot stand (a provider or
   * model that the operator's config and the catalog do not define), or undefined.
   * The catalog is not config's to know, so the caller checks; without a checker
   * every choice stands.
   */
  modelChoiceProblem?: (config: Config, role: ModelRole) => string | undefined;
}

/** Whether the project's config was trusted, and what an untrusted one asked for in vain. */
export interface ProjectTrust {
  /** The project root (git root, else the cwd). */
  root: string;
  trusted: boolean;
  /** What trusted it (`--trust-project`, `MOPAC_TRUST_PROJECT`, `trusted_projects in FILE`). */
  by?: string;
  /** The project's config files that were found, trusted or not. */
  files: string[];
  /** Keys of untrusted files that were not used, in file order. */
  ignored: IgnoredKey[];
  /** What the untrusted files narrow (applied by profile and limit resolution). */
  narrowing: Narrowing;
  /** The same, file by file (to say which file asked for what). */
  narrowingByFile: ReadonlyArray<{ file: string; narrowing: Narrowing }>;
}

/** One line of `config show --sources`. */
export interface SourceLine {
  path: JsonPath;
  source: string;
  /** Set for what an untrusted project gave: how it was used, or why not. */
  note?: string;
}

export interface LoadedConfig {
  config: Config;
  cwd: string;
  /** The git root, else the cwd. */
  workspaceRoot: string;
  gitRoot?: string;
  dataDir: string;
  /** Config files that were read, lowest layer first. */
  files: string[];
  /** The file (or `env NAME` / `command line`) that supplied the value at `path`. */
  sourceOf(path: JsonPath | string): string | undefined;
  /** Every leaf value and where it came from, in key order, then what a project could not set. */
  sources(): SourceLine[];
  /** crush keys mopac accepts and does not use (see ignored.ts), each with its source. */
  unusedKeys(): { path: JsonPath; source: string }[];
  /** Environment variables that config files reference with $VAR / ${VAR}. */
  referencedEnv: string[];
  /** Paths whose value came out of $VAR / $(cmd) expansion (secrets live here). */
  expandedPaths: JsonPath[];
  /** The variables the value at a dotted path named that were unset or empty. */
  unsetVars?(path: string): string[];
  /**
   * mopac's own variables that located a config file or set a value (XDG_CONFIG_HOME
   * or HOME for a user file that was found, MOPAC_*): a run that cannot read them
   * would see another config, so `mopac sandbox` lists them.
   */
  envUsed: string[];
  project: ProjectTrust;
}
