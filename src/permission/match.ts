/**
 * Pattern matching for the rules: path globs (picomatch), host patterns and
 * tool-name globs. Kept apart from the gate so each rule reads as one call.
 */
import picomatch from "picomatch";
import { isAbsolute, relative, resolve } from "node:path";

// picomatch ships no types; this is the one signature we use.
export type Matcher = (input: string) => boolean;
const compile = picomatch as unknown as (
  glob: string | string[],
  options?: { dot?: boolean; basename?: boolean; nocase?: boolean },
) => Matcher;

/** Forward slashes everywhere, so globs written for POSIX also work on Windows paths. */
export function slashes(path: string): string {
  return path.replaceAll("\\", "/");
}

/** True when `path` is `root` or below it (both absolute, normalised). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** `path` relative to `root` with forward slashes, or undefined when outside. */
export function relativeInside(path: string, root: string): string | undefined {
  if (!isInside(path, root)) return undefined;
  return slashes(relative(root, path));
}

/** Absolute form of a path a tool reported; relative ones are taken from the workspace. */
export function absolutePath(path: string, workspace: string): string {
  return resolve(workspace, path);
}

/**
 * Matches a path against globs written in config. A glob starting with `/` (or a
 * drive letter) matches the absolute path; any other glob matches the path relative
 * to the workspace, so it never reaches outside the workspace by accident.
 * `anyDepth` (used for deny lists) lets a slash-less glob such as `.env` match that
 * name in any folder, and also lets relative globs such as `**\/*.pem` match
 * absolute paths outside the workspace: denying too much is the safe direction.
 */
export class PathGlobs {
  readonly #absolute: Matcher | undefined;
  readonly #relative: Matcher | undefined;
  readonly #anyDepth: boolean;

  constructor(readonly globs: readonly string[], options: { anyDepth?: boolean } = {}) {
    const abs = globs.filter((g) => isAbsolute(g)).map(slashes);
    const rel = globs.filter((g) => !isAbsolute(g)).map((g) => slashes(g).replace(/^\.\//, ""));
    const anyDepth = options.anyDepth === true;
    this.#absolute = abs.length > 0 ? compile(abs, { dot: true }) : undefined;
    // picomatch's `basename` matches every glob against the last path segment only, so
    // it is given just the globs without a slash (`.env`); `private/**` matches the path.
    const base = anyDepth ? rel.filter((g) => !g.includes("/")) : [];
    const path = rel.filter((g) => !base.includes(g));
    const matchers = [
      ...(base.length > 0 ? [compile(base, { dot: true, basename: true })] : []),
      ...(path.length > 0 ? [compile(path, { dot: true })] : []),
    ];
    this.#relative = matchers.length > 0 ? (p) => matchers.some((m) => m(p)) : undefined;
    this.#anyDepth = anyDepth;
  }

  get empty(): boolean {
    return this.globs.length === 0;
  }

  /** The glob list matches `path` (absolute) seen from `workspace`. */
  matches(path: string, workspace: string): boolean {
    const abs = slashes(path);
    if (this.#absolute?.(abs)) return true;
    if (!this.#relative) return false;
    const rel = relativeInside(path, workspace);
    if (rel !== undefined && rel !== "" && this.#relative(rel)) return true;
    // For deny lists a relative glob also guards files outside the workspace.
    return this.#anyDepth && this.#relative(abs.replace(/^\/+/, ""));
  }
}

/** Splits `host:port`, `[v6]:port` or a bare host; the host is lower-cased. */
function splitHost(hostPort: string): { host: string; port?: string } {
  const text = hostPort.trim().toLowerCase();
  const v6 = text.match(/^\[([^\]]+)\](?::(\d+))?$/);
  if (v6) return { host: v6[1], port: v6[2] };
  const colon = text.lastIndexOf(":");
  if (colon > 0 && text.indexOf(":") === colon && /^\d+$/.test(text.slice(colon + 1))) {
    return { host: text.slice(0, colon), port: text.slice(colon + 1) };
  }
  return { host: text };
}

/**
 * Host patterns from `fetch.hosts`: `example.com`, `example.com:8080`,
 * `*.example.com` (any subdomain, not the apex), `*` (any host). A pattern
 * without a port allows every port of its host.
 */
export class HostPatterns {
  readonly #rules: Array<{ host: Matcher; port?: string }>;

  constructor(patterns: readonly string[]) {
    this.#rules = patterns.map((p) => {
      const { host, port } = splitHost(p);
      return { host: compile(host, { nocase: true }), port };
    });
  }

  matches(hostPort: string): boolean {
    const { host, port } = splitHost(hostPort);
    return this.#rules.some((r) => r.host(host) && (r.port === undefined || r.port === port));
  }
}

/** Tool-name globs (`list_*`, `mcp_github_*`); exact names match themselves. */
export function nameMatcher(globs: readonly string[]): Matcher {
  if (globs.length === 0) return () => false;
  return compile([...globs], { dot: true });
}
