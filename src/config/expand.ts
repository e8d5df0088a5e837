/**
 * `$VAR`, `${VAR}`, `${VAR:-default}` and `$(command)` in config string values,
 * expanded once per file so an error names the file that holds the text.
 * `$$` is a literal dollar; a `$` not followed by a name, `{` or `(` stays as is.
 * An unset variable expands to "" (as in a shell). Values that are themselves
 * shell text or prompts (hook commands, bash patterns, agent prompts) are left
 * alone: expanding them here would run or rewrite what the user meant literally.
 */
import { ConfigError, SandboxError } from "../util/errors.ts";
import { dotted, type JsonPath } from "./jsonc.ts";
import { type BoundedResult, runBounded } from "../util/subprocess.ts";

export interface ExpandContext {
  env: (name: string) => string | undefined;
  /** Folder `$(command)` runs in. */
  cwd: string;
  /** `file:line:col` of the value at a path, for errors. */
  where: (path: JsonPath) => string;
  commandTimeoutMs?: number;
  /** Filled in: names of variables referenced. */
  referenced: Set<string>;
  /** Filled in: paths whose value expansion changed. */
  expanded: JsonPath[];
  /**
   * Filled in: per dotted path, the variables its value named that were unset or empty
   * (so "no API key" can say which variable to set).
   */
  unset?: Map<string, string[]>;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Paths (with `*` for any key) whose strings are never expanded. */
const LITERAL_PATHS: string[][] = [
  ["$schema"],
  ["lsp"],
  ["recent_models"],
  ["hooks", "*", "*", "command"],
  ["hooks", "*", "*", "matcher"],
  ["agents", "*", "prompt"],
  ["agents", "*", "bash"],
];

export async function expandValue(
  value: unknown,
  ctx: ExpandContext,
  path: JsonPath = [],
): Promise<unknown> {
  if (isLiteral(path)) return value;
  if (typeof value === "string") {
    const out = await expandString(value, ctx, path);
    if (out !== value) ctx.expanded.push(path);
    return out;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(await expandValue(value[i], ctx, [...path, i]));
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await expandValue(v, ctx, [...path, k]);
    return out;
  }
  return value;
}

function isLiteral(path: JsonPath): boolean {
  return LITERAL_PATHS.some((pattern) =>
    pattern.length <= path.length && pattern.every((p, i) => p === "*" || p === path[i])
  );
}

async function expandString(
  text: string,
  ctx: ExpandContext,
  path: JsonPath,
): Promise<string> {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== "$") {
      out += ch;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
    } else if (next === "{") {
      const end = closingBrace(text, i + 2);
      if (end < 0) throw fail(ctx, path, `unterminated "\${" in ${JSON.stringify(text)}`);
      out += await braced(text.slice(i + 2, end), ctx, path);
      i = end + 1;
    } else if (next === "(") {
      const end = closingParen(text, i + 2);
      if (end < 0) throw fail(ctx, path, `unterminated "$(" in ${JSON.stringify(text)}`);
      out += await runCommand(text.slice(i + 2, end), ctx, path);
      i = end + 1;
    } else {
      const name = NAME.exec(text.slice(i + 1))?.[0];
      if (name) {
        out += orUnset(lookup(name, ctx, path), name, ctx, path);
        i += 1 + name.length;
      } else {
        out += "$";
        i++;
      }
    }
  }
  return out;
}

async function braced(inner: string, ctx: ExpandContext, path: JsonPath): Promise<string> {
  const name = NAME.exec(inner)?.[0];
  const rest = name ? inner.slice(name.length) : "";
  if (!name || (rest !== "" && !rest.startsWith(":-"))) {
    throw fail(ctx, path, `invalid "\${${inner}}": expected \${NAME} or \${NAME:-default}`);
  }
  const value = lookup(name, ctx, path);
  if (rest.startsWith(":-") && (value === undefined || value === "")) {
    return await expandString(rest.slice(2), ctx, path);
  }
  return orUnset(value, name, ctx, path);
}

/** The value, or "" for an unset variable, which is noted against the path. */
function orUnset(
  value: string | undefined,
  name: string,
  ctx: ExpandContext,
  path: JsonPath,
): string {
  if (value !== undefined && value !== "") return value;
  const key = dotted(path);
  ctx.unset?.set(key, [...(ctx.unset.get(key) ?? []), name]);
  return "";
}

function lookup(name: string, ctx: ExpandContext, path: JsonPath): string | undefined {
  ctx.referenced.add(name);
  try {
    return ctx.env(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new SandboxError(
        `${ctx.where(path)}: ${dotted(path)} reads $${name}, which the sandbox does not allow`,
        `--allow-env=${name}`,
      );
    }
    throw err;
  }
}

/** Index of the `}` that closes a `${` whose body starts at `from` (defaults may nest `${...}`). */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === "$" && text[i + 1] === "{") {
      depth++;
      i++;
    } else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Index of the `)` that closes a `$(` whose body starts at `from`; quotes are skipped. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\") i++;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/** A `$(...)`: real bash, killed with everything it started when its time is up. */
async function runCommand(command: string, ctx: ExpandContext, path: JsonPath): Promise<string> {
  const timeoutMs = ctx.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  let result: BoundedResult;
  try {
    result = await runBounded("bash", { args: ["-c", command], cwd: ctx.cwd, timeoutMs });
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new SandboxError(
        `${ctx.where(path)}: ${dotted(path)} runs $(${command}), which needs bash`,
        "--allow-run=bash",
      );
    }
    throw fail(ctx, path, `$(${command}) could not start: ${(err as Error).message}`, err);
  }
  if (result.kind === "timeout") {
    throw fail(ctx, path, `$(${command}) did not finish within ${timeoutMs / 1000} s`);
  }
  if (!result.success) {
    const stderr = result.stderr.trim().split("\n")[0] ?? "";
    throw fail(
      ctx,
      path,
      `$(${command}) failed with exit code ${result.code}${stderr ? `: ${stderr}` : ""}`,
    );
  }
  // Like a shell's command substitution: trailing newlines are dropped.
  return result.stdout.replace(/\n+$/, "");
}

function fail(ctx: ExpandContext, path: JsonPath, message: string, cause?: unknown): ConfigError {
  return new ConfigError(`${dotted(path)}: ${message}`, { where: ctx.where(path), cause });
}
