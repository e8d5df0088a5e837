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
 * drive letter) matches the absolute path, also through a symlink in its literal
 * part (`/tmp/x/**` where /tmp is a link); any other glob matches the path relative
 * to the workspace (`secrets/**`, `certs/*.pem`, `.github/workflows/*`), so it never
 * reaches outside the workspace by accident. A trailing `/` means the folder's
 * contents (`secrets/` is `secrets/**`).
 *
 * `anyDepth` (deny lists): a slash-less glob such as `.env` matches that name in any
 * folder; a path is also matched when one of the folders holding it is (`secrets`
 * denies `secrets/key.txt`); and relative globs such as `**\/*.pem` also match
 * absolute paths outside the workspace: denying too much is the safe direction.
 */
export class PathGlobs {
  readonly #absolute: Matcher | undefined;
  readonly #relative: Matcher | undefined;
  readonly #names: Matcher | undefined;
  readonly #anyDepth: boolean;

  constructor(readonly globs: readonly string[], options: { anyDepth?: boolean } = {}) {
    const anyDepth = options.anyDepth === true;
    const written = globs.map((g) => slashes(g).replace(/\/$/, "/**"));
    const abs = written.filter((g) => isAbsolute(g) || /^[A-Za-z]:\//.test(g));
    const rel = written.filter((g) => !abs.includes(g)).map((g) => g.replace(/^(\.\/)+/, ""));
    const names = anyDepth ? rel.filter((g) => !g.includes("/")) : [];
    const opts = { dot: true };
    const absAll = [...abs, ...abs.flatMap(realGlob)];
    this.#absolute = absAll.length > 0 ? compile(absAll, opts) : undefined;
    this.#relative = rel.length > 0 ? compile(rel, opts) : undefined;
    this.#names = names.length > 0 ? compile(names, opts) : undefined;
    this.#anyDepth = anyDepth;
  }

  get empty(): boolean {
    return this.globs.length === 0;
  }

  /** The glob list matches `path` (absolute) seen from `workspace`. */
  matches(path: string, workspace: string): boolean {
    const abs = slashes(path);
    const rel = relativeInside(path, workspace);
    const candidates = this.#anyDepth ? withAncestors(abs) : [abs];
    for (const p of candidates) {
      if (this.#absolute?.(p)) return true;
      if (this.#names?.(p.slice(p.lastIndexOf("/") + 1))) return true;
    }
    if (!this.#relative) return false;
    if (rel !== undefined && rel !== "") {
      const rels = this.#anyDepth ? withAncestors(rel) : [rel];
      if (rels.some((r) => this.#relative!(r))) return true;
    }
    // For deny lists a relative glob also guards files outside the workspace.
    return this.#anyDepth &&
      candidates.some((p) => p !== "/" && this.#relative!(p.replace(/^\/+/, "")));
  }
}

/** `a/b/c` and the folders holding it: `a/b`, `a` (or `/a/b/c`, `/a/b`, `/a`). */
function withAncestors(p: string): string[] {
  const out = [p];
  for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) out.push(p.slice(0, i));
  return out;
}

/** An absolute glob with its literal base resolved through symlinks, when that differs. */
function realGlob(glob: string): string[] {
  const { base } = picomatch.scan(glob);
  if (!base || base === "/") return [];
  try {
    const real = slashes(Deno.realPathSync(base));
    return real === base ? [] : [real + glob.slice(base.length)];
  } catch {
    return []; // not there (yet) or not ours to look at: the glob as written
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
