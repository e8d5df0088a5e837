/**
 * How the file tools report problems the model can act on: they throw
 * ToolFailure (or hit a filesystem error) and `asToolError` turns that into an
 * error result. Anything else (a bug, a cancelled run) propagates to the runner.
 */
import type { ToolOutput } from "./types.ts";
import { PathChangedError } from "./fs/pinned.ts";

/** A failure whose message goes back to the model as the tool's error result. */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolFailure";
  }
}

/** Runs `body`; model-fixable failures and filesystem errors become error results. */
export async function asToolError(body: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await body();
  } catch (err) {
    const message = describeFailure(err);
    if (message === null) throw err;
    return { content: message, is_error: true };
  }
}

function describeFailure(err: unknown): string | null {
  if (err instanceof ToolFailure || err instanceof PathChangedError) return err.message;
  if (err instanceof Deno.errors.NotCapable) {
    return `The sandbox (Deno permissions) does not allow this: ${firstLine(err.message)}`;
  }
  if (err instanceof Deno.errors.PermissionDenied) {
    return `Permission denied by the operating system: ${firstLine(err.message)}`;
  }
  if (err instanceof Deno.errors.Interrupted) return null;
  // Other filesystem errors (EISDIR, ENOTDIR, ELOOP, ENOSPC, …) are facts the model can work with.
  if (err instanceof Error && Object.values(Deno.errors).some((cls) => err instanceof cls)) {
    return `Filesystem error: ${firstLine(err.message)}`;
  }
  return null;
}

function firstLine(s: string): string {
  return s.split("\n")[0];
}
