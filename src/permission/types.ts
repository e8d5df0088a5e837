/**
 * What the permission gate is asked and what it answers. Tools describe what a
 * call would touch (`Access`); the gate decides from the active profile.
 */

/** One simple command found in a shell script, after quotes and escapes are resolved. */
export interface ShellCommand {
  /** Words of the command; argv[0] is the command name. Wrappers (env, xargs, …) are already peeled off. */
  argv: string[];
  /** True when the command name is not a static literal (`$X`, `$(echo curl)`): such commands are denied. */
  dynamic: boolean;
  /** Indexes into argv of the words known only at run time (`$X`, `$(…)`); argv holds their text as written. */
  dynamic_args?: number[];
  /** The command as written, for messages. */
  text: string;
  /** Assignments in front of the command (`VAR=x cmd`, `env VAR=x cmd`): its environment. */
  assigns?: ShellAssignment[];
  /**
   * More arguments are added at run time (`… | xargs rm -rf`): the policy cannot see
   * them, so argument-dependent bans treat them as unknown.
   */
  appended?: boolean;
}

/** A variable the script sets: `A=1`, `export A`, `read A`, `for A in`, `((A=1))`, `${A:=x}`, … */
export interface ShellAssignment {
  /** The variable; undefined when its name is only known at run time (`export "$N=1"`). */
  name?: string;
  /** The value as written (source text; empty when the script does not say). */
  value: string;
  /** The assignment as written, for messages. */
  text: string;
}

/** A file a redirection opens (`> f`, `< f`, `>> f`, `&> f`, `<> f`, `>& f`). */
export interface ShellRedirect {
  mode: "read" | "write" | "readwrite";
  /** The file name after quote removal when static; the source text otherwise. */
  target: string;
  /** False when the name is known only at run time (`> $f`, `> ~/x`, `> *.log`). */
  static: boolean;
  text: string;
}

/**
 * A place where bash makes code of text it only has at run time (a variable's value
 * in arithmetic, `${x@P}`, a subscript in a variable name; src/tools/shell/evaluations.ts).
 */
export interface ShellEvaluation {
  /** The construct as written. */
  text: string;
  /** What bash does with it, for the denial. */
  what: string;
}

export interface ShellAccess {
  script: string;
  commands: ShellCommand[];
  /** Assignments that are statements of their own (not a command's prefix). */
  assignments: ShellAssignment[];
  redirects: ShellRedirect[];
  evaluations: ShellEvaluation[];
  /**
   * Where `cd`, `pushd` and `popd` may take the script: static targets as written
   * (relative ones from wherever the script is), and whether one is only known at
   * run time (`cd "$D"`, `cd -`, `popd`), after which a relative path means anything.
   */
  cd: { targets: string[]; unknown: boolean };
  /**
   * Directories the script may be in when a command runs: the call's directory, and
   * each static `cd` target resolved from it. Filled in by the bash tool, which knows
   * the session's directory; absent in a bare parse.
   */
  cwds?: string[];
  /** Set when the script does not parse; the gate denies it. */
  parse_error?: string;
}

/** What a tool call would touch. Paths are absolute and symlink-resolved. */
export interface Access {
  reads?: string[];
  writes?: string[];
  /**
   * Files a shell script's redirections open: the same rules as `reads`/`writes`,
   * except that harmless devices (/dev/null, /dev/stderr, …) are allowed, and so are
   * the `scratch` folders the tool names (the OS jail's private /tmp and /dev/shm,
   * which no one else sees); `paths.deny` still applies there.
   */
  redirects?: { reads: string[]; writes: string[]; scratch?: string[] };
  shell?: ShellAccess;
  /** `host:port` for network tools. */
  hosts?: string[];
}

export interface GateRequest {
  /** The name the model called. */
  tool: string;
  /** Set for MCP tools: the server and the tool's own name. */
  mcp?: { server: string; tool: string };
  input: unknown;
  access: Access;
  /** The session making the call, passed on to PreToolUse hooks. */
  session_id?: string;
  /** The input is a hook's rewrite: the rules are checked again, the hooks are not run again. */
  rewritten?: boolean;
}

export type Decision =
  | {
    allow: true;
    /**
     * A hook rewrote the input (a shallow patch): the call runs with the patched
     * input, after it passed the gate's rules again, or not at all.
     */
    updated_input?: Record<string, unknown>;
    /** Notes from hooks, appended to what the model sees of the result. */
    context?: string;
  }
  | {
    allow: false;
    rule: string;
    reason: string;
    /** A hook halted the run: it ends with the gate's exit code, whatever --on-deny says. */
    halt?: boolean;
  };

export interface Gate {
  /** Names of the tools the active profile offers (others are not shown to the model). */
  allows(tool: string, mcp?: { server: string; tool: string }): boolean;
  check(req: GateRequest): Promise<Decision>;
  /** What tools that read many files (ls, glob, grep) may show of each. */
  readonly paths: PathView;
}

/**
 * The read rules as a tool that lists or searches many files applies them to each:
 * a file or folder that is not readable is neither shown nor searched nor entered.
 */
export interface PathView {
  /** Whether a read of this absolute, symlink-resolved path would be allowed. */
  readable(path: string): boolean;
  /** The profile's `paths.deny` globs as written (for ripgrep's exclusions). */
  readonly denyGlobs: readonly string[];
}
