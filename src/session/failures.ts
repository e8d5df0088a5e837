/**
 * How the store's failures reach its callers: a throw in synchronous work becomes
 * a rejection (one failure mode whether the work was sync or not), and the OS
 * refusing a write becomes an error the user can act on.
 */
import { StorageError, UsageError } from "../util/errors.ts";

export function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The OS refusing a write: no permission, a read-only mount or an immutable file, no space. */
function refusedWrite(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return err instanceof Deno.errors.PermissionDenied || code === "EROFS" || code === "ENOSPC" ||
    code === "EDQUOT";
}

/** The OS message without Deno's trailing `: syscall 'path'`. */
function reason(err: unknown): string {
  return (err as Error).message.replace(/: \w+ '[^']*'$/, "");
}

/**
 * The OS refusing a write (a read-only mount, an immutable or foreign-owned file, a
 * full disk) before the run began is the user's to fix, not a bug: name the file
 * instead of failing as an internal error.
 */
export function writable<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (refusedWrite(err)) {
      throw new UsageError(
        `cannot write ${path}: ${reason(err)}`,
        {
          hint: "make it writable or free space, or choose another data dir with --data-dir",
          cause: err,
        },
      );
    }
    throw err;
  }
}

/**
 * A session write that failed after the run began (anything the OS said, or the file
 * gone): a StorageError naming the file, which ends the run with exit 6.
 */
export function storageFailure(path: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  return new StorageError(path, `cannot write the session file ${path}: ${reason(err)}`, {
    hint: refusedWrite(err)
      ? "free space or make it writable; then `mopac run -s ID` continues the session"
      : undefined,
    cause: err,
  });
}
