/**
 * The one table from a run's ending to its exit code and result subtype (DESIGN §2,
 * §3), and how a failure is reported: one line, a hint, never a stack trace.
 */
import type { Ending } from "../app/run_events.ts";
import {
  AgentError,
  BudgetError,
  ConfigError,
  GateError,
  InterruptedError,
  JailError,
  MopacError,
  SandboxError,
  SessionBusyError,
  ToolInfraError,
  UsageError,
} from "../util/errors.ts";
import { readEnv } from "../util/env.ts";
import { explainNotCapable, isNotCapable } from "../deno_perms/not_capable.ts";
import type { Io } from "./io.ts";
import { ProviderError } from "../provider/errors.ts";

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  gate: 3,
  budget: 4,
  agent: 5,
  tool: 6,
  sigint: 130,
  sigterm: 143,
} as const;

export function endingOf(err: unknown): Ending {
  if (err === undefined) return { code: EXIT.ok, subtype: "success" };
  // Another run holds the session: nothing is wrong with this one, it may be retried.
  if (err instanceof SessionBusyError) return { code: EXIT.usage, subtype: "error_session_busy" };
  if (
    err instanceof UsageError || err instanceof ConfigError || err instanceof SandboxError ||
    err instanceof JailError
  ) {
    return { code: EXIT.usage, subtype: "error_agent" };
  }
  if (err instanceof GateError) return { code: EXIT.gate, subtype: "error_gate" };
  if (err instanceof BudgetError) {
    return {
      code: EXIT.budget,
      subtype: err.kind === "turns" ? "error_max_turns" : "error_budget",
    };
  }
  // A model call that failed for good ends the run like the agent failing (DESIGN §2).
  if (err instanceof AgentError || err instanceof ProviderError) {
    return { code: EXIT.agent, subtype: "error_agent" };
  }
  if (err instanceof ToolInfraError) return { code: EXIT.tool, subtype: "error_tool" };
  if (err instanceof InterruptedError) {
    return { code: err.signal === "SIGTERM" ? EXIT.sigterm : EXIT.sigint, subtype: "cancelled" };
  }
  return { code: EXIT.internal, subtype: "error_agent" };
}

/** A sandbox refusal anywhere becomes a usage error naming the flag to add. */
export function explained(err: unknown): unknown {
  // A SandboxError names its flag already, whatever NotCapable it carries as its cause.
  return !(err instanceof SandboxError) && isNotCapable(err) ? explainNotCapable(err) : err;
}

/** Prints `err` as one line (and its hint) on stderr; returns its exit code. */
export function reportError(err: unknown, io: Pick<Io, "err">): number {
  err = explained(err);
  const { code } = endingOf(err);
  if (err instanceof MopacError) {
    io.err(`mopac: ${err.message}\n`);
    if (err.hint) io.err(`hint: ${err.hint}\n`);
  } else {
    const e = err instanceof Error ? err : new Error(String(err));
    io.err(`mopac: internal error: ${e.message}\n`);
    if (readEnv("MOPAC_DEBUG")) io.err(`${e.stack}\n`);
  }
  return code;
}
