/**
 * Ties `access()` and `run()` of one call to the same real path. The gate approves
 * the path `access()` reported; if a symlink is swapped between the check and the
 * run, `run()` would resolve somewhere else. The runner hands both the same parsed
 * input object, so the approved path is remembered against that object and `run()`
 * refuses to act on a different one.
 */
import type { Access } from "../../permission/types.ts";
import type { ToolContext } from "../types.ts";
import { type ResolvedPath, resolvePath } from "./paths.ts";

const approved = new WeakMap<object, string>();

/**
 * The one folder every tool resolves a relative path against: the session's current
 * directory, which starts where the run started and moves with a `cd` in bash.
 */
export function currentDir(ctx: ToolContext): string {
  return ctx.state.shell.cwd || ctx.workspace;
}

/** Resolves for the gate and remembers the result for this call's run. */
async function resolveForAccess(input: object, filePath: string, base: string): Promise<string> {
  const { real } = await resolvePath(filePath, base);
  approved.set(input, real);
  return real;
}

type AccessOf<T> = (input: T, ctx: ToolContext) => Promise<Access>;

/** The `access()` of a tool that reads the one path its input names. */
export function readsPath<T extends object>(pathOf: (input: T) => string): AccessOf<T> {
  return async (input, ctx) => ({
    reads: [await resolveForAccess(input, pathOf(input), currentDir(ctx))],
  });
}

/** The `access()` of a tool that changes the one file its input names (it reads it first). */
export function writesPath<T extends object>(pathOf: (input: T) => string): AccessOf<T> {
  return async (input, ctx) => {
    const real = await resolveForAccess(input, pathOf(input), currentDir(ctx));
    return { reads: [real], writes: [real] };
  };
}

/** Thrown by `resolveForRun` when the path now resolves elsewhere than the gate saw. */
export class PathChangedError extends Error {
  constructor(readonly approvedPath: string, readonly nowPath: string) {
    super(
      `The path now resolves to ${nowPath}, not to ${approvedPath} as when it was checked ` +
        `(a symlink changed in between). Nothing was done; call the tool again.`,
    );
  }
}

/** Resolves for the run; throws PathChangedError when it differs from what access() reported. */
export async function resolveForRun(
  input: object,
  filePath: string,
  base: string,
): Promise<ResolvedPath> {
  const resolved = await resolvePath(filePath, base);
  const before = approved.get(input);
  if (before !== undefined && before !== resolved.real) {
    throw new PathChangedError(before, resolved.real);
  }
  return resolved;
}
