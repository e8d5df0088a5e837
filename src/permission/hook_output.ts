/**
 * What one PreToolUse hook said, read the way crush reads it (and Claude Code's
 * spellings where they differ): the exit code first (2 denies, 49 halts), then on
 * exit 0 the JSON envelope on stdout: `decision` ("allow" | "deny" | null), `halt`,
 * `reason`, `context` (a string or strings for the model; also `additionalContext`
 * or `additional_context`) and `updated_input` (a shallow patch of the tool's input,
 * an object or a string holding one; anything else denies the call). Claude Code's
 * `hookSpecificOutput` with `permissionDecision` and `updatedInput`, and
 * `continue: false`, mean the same.
 */
import type { HookInput } from "./config_shape.ts";

/** How running one hook command ended. */
export type HookOutcome =
  | { kind: "exit"; code: number; stdout: string; stderr: string }
  | { kind: "timeout" }
  | { kind: "error"; message: string };

export interface HookVerdict {
  kind: "none" | "allow" | "deny" | "halt";
  reason?: string;
  updated_input?: Record<string, unknown>;
  context?: string[];
}

/** crush's exit code for "halt the turn". */
const HALT_EXIT = 49;

export function verdictOf(
  outcome: HookOutcome,
  hook: HookInput,
  timeoutS: number,
  log?: (s: string) => void,
): HookVerdict {
  switch (outcome.kind) {
    case "timeout":
      return { kind: "deny", reason: `hook timed out after ${timeoutS}s` };
    case "error":
      return { kind: "deny", reason: `hook could not run: ${outcome.message}` };
    case "exit": {
      const stderr = outcome.stderr.trim();
      if (outcome.code === 0) return envelope(outcome.stdout);
      if (outcome.code === 2) return { kind: "deny", reason: stderr || "blocked by hook" };
      if (outcome.code === HALT_EXIT) return { kind: "halt", reason: stderr || "halted by hook" };
      log?.(
        `warning: hook "${hook.command}" exited with ${outcome.code}; ignoring it` +
          (stderr ? `: ${stderr}` : ""),
      );
      return { kind: "none" };
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function envelope(stdout: string): HookVerdict {
  const text = stdout.trim();
  if (!text.startsWith("{")) return { kind: "none" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "none" };
  }
  if (!isObject(parsed)) return { kind: "none" };
  const specific = isObject(parsed.hookSpecificOutput) ? parsed.hookSpecificOutput : {};
  const decision = String(specific.permissionDecision ?? parsed.decision ?? "").toLowerCase();
  const reason = String(
    specific.permissionDecisionReason ?? parsed.reason ?? parsed.stopReason ?? "",
  );
  const patch = patchOf(parsed.updated_input ?? specific.updatedInput ?? parsed.updatedInput);
  const context = [
    parsed.context,
    parsed.additionalContext,
    parsed.additional_context,
    specific.additionalContext,
  ].flat().filter((c): c is string => typeof c === "string" && c !== "");
  const halt = parsed.halt === true || parsed.continue === false;
  const kind = halt
    ? "halt"
    : decision === "deny" || decision === "block" || patch === "invalid"
    ? "deny"
    : decision === "allow" || decision === "approve"
    ? "allow"
    : "none";
  const why = reason ||
    (patch === "invalid"
      ? "the hook's updated_input is not a JSON object; the call was not run"
      : "");
  return {
    kind,
    ...(why ? { reason: why } : {}),
    ...(isObject(patch) ? { updated_input: patch } : {}),
    ...(context.length > 0 ? { context } : {}),
  };
}

/**
 * A rewrite as crush takes it: an object, or a string holding one (its older form).
 * Anything else the hook sent is "invalid": the call is denied rather than run as the
 * model wrote it, since the hook meant it to run otherwise.
 */
function patchOf(value: unknown): Record<string, unknown> | "invalid" | undefined {
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) return value;
  if (typeof value === "string") {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: invalid, below
    }
  }
  return "invalid";
}
