/**
 * Turns Deno's `NotCapable` errors (a permission the process was not started with)
 * into a SandboxError that names the flag to add with its value, so a denial
 * anywhere ends in a one-line message and exit 2 instead of a stack trace.
 */
import { SandboxError } from "../util/errors.ts";

/** True for Deno's permission errors, also when they crossed a realm or were re-wrapped. */
export function isNotCapable(err: unknown): boolean {
  if (err instanceof Deno.errors.NotCapable) return true;
  if (!(err instanceof Error)) return false;
  return err.name === "NotCapable" || (err.cause !== undefined && isNotCapable(err.cause));
}

const VERB: Record<string, string> = {
  read: "read",
  write: "write",
  net: "reach",
  env: "read the environment variable",
  run: "run",
  sys: "read system information",
  ffi: "load the native library",
  import: "import from",
  all: "access",
};

/**
 * Reads a message like `Requires read access to "/x", run again with the
 * --allow-read flag` and returns a SandboxError whose flag is `--allow-read=/x`.
 * Messages without a value (`Requires env access, …`) give the bare flag.
 */
export function explainNotCapable(err: unknown): SandboxError {
  const inner = notCapableOf(err);
  const message = inner instanceof Error ? inner.message : String(inner);
  const access = message.match(/Requires (\w+) access(?: to "((?:[^"\\]|\\.)*)")?/);
  const named = message.match(/(--allow-[a-z-]+)/);
  let flag: string;
  let text: string;
  if (access) {
    const [, kind, value] = access;
    const base = named?.[1] ?? (kind === "all" ? "--allow-all" : `--allow-${kind}`);
    // --allow-all takes no value; every other flag narrows best with one.
    flag = value && base !== "--allow-all" ? `${base}=${value}` : base;
    const verb = VERB[kind] ?? `use ${kind} access to`;
    text = value
      ? `Deno's permissions do not let mopac ${verb} "${value}"`
      : `Deno's permissions do not let mopac use ${kind} access`;
  } else {
    flag = named?.[1] ?? "--allow-all";
    text = `Deno's permissions refused an operation: ${firstLine(message)}`;
  }
  return new SandboxError(`${text} (add ${flag})`, flag, { cause: err });
}

function notCapableOf(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof Deno.errors.NotCapable || current.name === "NotCapable") return current;
    current = current.cause;
  }
  return err;
}

function firstLine(text: string): string {
  return text.split("\n")[0].trim();
}
