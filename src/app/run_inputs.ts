/**
 * What a run is given on the command line must be there before anything starts:
 * the working directory readable, input files present, the folder of an output file
 * in place. Each failure is exit 2 naming the flag, not a failed request later.
 */
import { granted } from "../deno_perms/needs.ts";
import { SandboxError, UsageError } from "../util/errors.ts";

/** Config under an unreadable cwd would be skipped as absent: name the flag instead. */
export function requireRead(path: string): void {
  if (granted({ name: "read", path })) return;
  throw new SandboxError(
    `Deno's permissions do not let mopac read the working directory ${path} ` +
      "(its config files and workspace)",
    `--allow-read=${path}`,
  );
}

/** The folder an output file goes into must exist before anything starts (exit 2). */
export function requireFolder(path: string, flag: string): void {
  try {
    if (Deno.statSync(path).isDirectory) return;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) return;
  }
  throw new UsageError(`${flag}: the folder ${path} does not exist`);
}

/** A missing input file is a usage error before anything starts (exit 2, not a failed request). */
export function requireFile(path: string, flag: string): void {
  try {
    if (Deno.statSync(path).isFile) return;
  } catch (err) {
    // Without read permission the preflight names the flag instead.
    if (err instanceof Deno.errors.NotCapable) return;
  }
  throw new UsageError(`${flag} ${path}: no such file`);
}
