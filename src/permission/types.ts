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
}

export interface ShellAccess {
  script: string;
  commands: ShellCommand[];
  /** Set when the script does not parse; the gate denies it. */
  parse_error?: string;
}

/** What a tool call would touch. Paths are absolute and symlink-resolved. */
export interface Access {
  reads?: string[];
  writes?: string[];
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
}

export type Decision =
  | { allow: true }
  | { allow: false; rule: string; reason: string };

export interface Gate {
  /** Names of the tools the active profile offers (others are not shown to the model). */
  allows(tool: string, mcp?: { server: string; tool: string }): boolean;
  check(req: GateRequest): Promise<Decision>;
}
