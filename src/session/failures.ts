/**
 * How the store's failures reach its callers: a throw in synchronous work becomes
 * a rejection (one failure mode whether the work was sync or not), and the OS
 * refusing a write becomes an error the user can act on.
 */
import { UsageError } from "../util/errors.ts";

export function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

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
