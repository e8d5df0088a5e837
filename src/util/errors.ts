/**
 * Errors that end a run. Each class names a kind of failure; the one table that
 * turns them into exit codes is `src/cli/exit_codes.ts`. Failures the model can
 * fix never become these: they go back to the model as tool errors.
 */

/** Base of every expected failure; anything else reaching the CLI is a bug (exit 1). */
export class MopacError extends Error {
  // Spelled out in every subclass, not taken from the class: a minified build
  // (`deno task build`) renames classes, and the name is recorded in sessions.
  override name = "MopacError";
  /** A short next step for the user, printed after the message. */
  readonly hint?: string;
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.hint = options?.hint;
  }
}

/** Bad flag, missing prompt, unknown or ambiguous model or session id. */
export class UsageError extends MopacError {
  override name = "UsageError";
}

/** Invalid configuration; `where` is `file:line:col` when known. */
export class ConfigError extends MopacError {
  override name = "ConfigError";
  readonly where?: string;
  constructor(message: string, options?: { where?: string; hint?: string; cause?: unknown }) {
    super(options?.where ? `${options.where}: ${message}` : message, options);
    this.where = options?.where;
  }
}

/** A Deno permission this run needs was not granted. */
export class SandboxError extends MopacError {
  override name = "SandboxError";
  readonly flag: string;
  constructor(message: string, flag: string, options?: { cause?: unknown }) {
    super(message, { hint: `add ${flag} to the deno command line`, cause: options?.cause });
    this.flag = flag;
  }
}

/**
 * The bash tool is offered but no OS jail works here (bwrap missing, user
 * namespaces refused, an OS without a backend). The message names the cause; the
 * hint names both ways out.
 */
export class JailError extends MopacError {
  override name = "JailError";
}

/** A session is locked by another live process. */
export class SessionBusyError extends MopacError {
  override name = "SessionBusyError";
}

/** The permission gate ended the run (`--on-deny stop|fail`). */
export class GateError extends MopacError {
  override name = "GateError";
}

/** A PreToolUse hook halted the run (crush's `halt`, exit 49): a gate error, whatever --on-deny says. */
export class HookHaltError extends GateError {
  override name = "HookHaltError";
  constructor(readonly reason: string) {
    super(`a hook halted the run: ${reason}`);
  }
}

export type BudgetKind = "turns" | "tokens" | "cost" | "time";

/** A limit of the run was reached before the agent finished. */
export class BudgetError extends MopacError {
  override name = "BudgetError";
  readonly kind: BudgetKind;
  constructor(kind: BudgetKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** The model or provider failed for good, or the agent was stopped (loop guard). */
export class AgentError extends MopacError {
  override name = "AgentError";
}

/** A required MCP server failed, or tool infrastructure broke. */
export class ToolInfraError extends MopacError {
  override name = "ToolInfraError";
}

/**
 * The session could no longer be written once the run had begun: the disk is full, the
 * file was made unwritable, or it (or the data dir) was removed. Ends the run like
 * broken tool infrastructure (exit 6); what was written so far stays resumable.
 */
export class StorageError extends ToolInfraError {
  override name = "StorageError";
  readonly path: string;
  constructor(path: string, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** The run was interrupted by a signal. */
export class InterruptedError extends MopacError {
  override name = "InterruptedError";
  readonly signal: "SIGINT" | "SIGTERM";
  constructor(signal: "SIGINT" | "SIGTERM") {
    super(`interrupted by ${signal}`);
    this.signal = signal;
  }
}

/** Arguments from the model that do not fit a tool's schema (goes back to the model). */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolInputError";
  }
}
