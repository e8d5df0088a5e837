/** Turns the OS refusing a session write into an error the user can act on. */
import { UsageError } from "../util/errors.ts";

/**
 * The OS refusing a write (a read-only mount, an immutable or foreign-owned file) is
 * the user's to fix, not a bug: name the file instead of failing as an internal error.
 */
export function writable<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (err instanceof Deno.errors.PermissionDenied || code === "EROFS") {
      throw new UsageError(
        `cannot write ${path}: ${(err as Error).message.replace(/: \w+ '[^']*'$/, "")}`,
        {
          hint: "make it writable, or choose another data dir with --data-dir",
          cause: err,
        },
      );
    }
    throw err;
  }
}
