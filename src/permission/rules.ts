/**
 * The rule patterns of a profile, compiled once: path globs, fetch hosts and the
 * MCP allowance. Each check answers with a Decision that names the config key
 * (`paths.write`, `fetch.hosts`, …) so a denial says which rule to change.
 */
import type { Access, Decision } from "./types.ts";
import type { Profile } from "./profiles.ts";
import { absolutePath, HostPatterns, isInside, nameMatcher, PathGlobs } from "./match.ts";

const ALLOW: Decision = { allow: true };

/** Devices a redirection may use whatever the path rules say: they hold no one's data. */
const HARMLESS_DEVICE =
  /^\/dev\/(null|zero|full|random|urandom|tty|stdin|stdout|stderr|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

export class ProfileRules {
  readonly #deny: PathGlobs;
  readonly #read: PathGlobs;
  readonly #write: PathGlobs | undefined;
  readonly #hosts: HostPatterns | undefined;
  readonly #mcp: "all" | Map<string, (tool: string) => boolean>;
  readonly #mcpNames: Array<(name: string) => boolean>;
  /** `--add-dir` folders: read and written like the workspace, never against `deny`. */
  readonly #dirs: readonly string[];

  constructor(readonly profile: Profile, readonly workspace: string) {
    this.#dirs = profile.paths.dirs ?? [];
    this.#deny = new PathGlobs(profile.paths.deny, { anyDepth: true });
    this.#read = new PathGlobs(profile.paths.read);
    this.#write = profile.paths.write ? new PathGlobs(profile.paths.write) : undefined;
    this.#hosts = profile.fetchHosts ? new HostPatterns(profile.fetchHosts) : undefined;
    this.#mcp = profile.mcp === "all" ? "all" : new Map(
      Object.entries(profile.mcp).map(([server, tools]) => [
        server,
        tools === true ? () => true : nameMatcher(tools),
      ]),
    );
    this.#mcpNames = profile.mcpNameFilters.map((globs) => nameMatcher(globs));
  }

  /** Whether the profile offers a tool at all (before any rule on its input). */
  offers(tool: string, mcp?: { server: string; tool: string }): boolean {
    if (!mcp) return this.profile.tools.has(tool);
    if (!this.#mcpNames.every((matches) => matches(tool))) return false;
    if (this.#mcp === "all") return true;
    return this.#mcp.get(mcp.server)?.(mcp.tool) ?? false;
  }

  /** What narrowed a tool the profile itself allows out of this run (`--tools`, …), if anything. */
  narrowedBy(tool: string, mcp?: { server: string; tool: string }): string | undefined {
    if (!mcp) return this.profile.narrowedOut?.get(tool);
    const allowed = this.#mcp === "all" || (this.#mcp.get(mcp.server)?.(mcp.tool) ?? false);
    if (!allowed) return undefined;
    const i = this.#mcpNames.findIndex((matches) => !matches(tool));
    return i < 0 ? undefined : this.profile.mcpNameFilterSources?.[i] ?? "a narrowing";
  }

  /**
   * Paths: deny globs first, then writes against paths.write (or the workspace), then
   * reads. A shell's redirections pass the same rules, except that harmless devices
   * (/dev/null, /dev/stderr, /dev/fd/N, …) and the jail's private scratch folders are
   * allowed. An `--add-dir` folder counts as workspace for writes and reads.
   */
  checkPaths(access: Access): Decision {
    const abs = (list?: string[]) => (list ?? []).map((p) => absolutePath(p, this.workspace));
    const writes = abs(access.writes);
    const reads = abs(access.reads);
    const shellWrites = abs(access.redirects?.writes);
    const shellReads = abs(access.redirects?.reads);
    for (const path of [...writes, ...reads, ...shellWrites, ...shellReads]) {
      if (this.#denied(path)) {
        return { allow: false, rule: "paths.deny", reason: `path is denied: ${path}` };
      }
    }
    const scratch = access.redirects?.scratch ?? [];
    const free = (path: string) =>
      HARMLESS_DEVICE.test(path) || scratch.some((root) => isInside(path, root));
    return this.#checkWrites([...writes, ...shellWrites.filter((p) => !free(p))]) ??
      this.#checkReads([...reads, ...shellReads.filter((p) => !free(p))]) ?? ALLOW;
  }

  #checkWrites(writes: string[]): Decision | undefined {
    for (const path of writes) {
      const ok = this.#added(path) ||
        (this.#write ? this.#write.matches(path, this.workspace) : isInside(path, this.workspace));
      if (!ok) {
        return {
          allow: false,
          rule: this.#write ? "paths.write" : "workspace",
          reason: `write outside allowed paths: ${path}`,
        };
      }
    }
    return undefined;
  }

  #checkReads(reads: string[]): Decision | undefined {
    for (const path of reads) {
      if (!this.#readableAt(path)) {
        return { allow: false, rule: "paths.read", reason: `read outside allowed paths: ${path}` };
      }
    }
    return undefined;
  }

  /** Deny globs: from the workspace, and a relative glob from an `--add-dir` folder too. */
  #denied(path: string): boolean {
    if (this.#deny.matches(path, this.workspace)) return true;
    return this.#dirs.some((dir) => isInside(path, dir) && this.#deny.matches(path, dir));
  }

  #added(path: string): boolean {
    return this.#dirs.some((dir) => isInside(path, dir));
  }

  #readableAt(path: string): boolean {
    return isInside(path, this.workspace) || this.#read.matches(path, this.workspace) ||
      this.#added(path);
  }

  /** Whether a read of `path` (absolute, symlink-resolved) passes the deny and read rules. */
  readable(path: string): boolean {
    const abs = absolutePath(path, this.workspace);
    return !this.#denied(abs) && this.#readableAt(abs);
  }

  /** Hosts (`host:port`) against `fetch.hosts`; no list means any host. */
  checkHosts(access: Access): Decision {
    if (!this.#hosts) return ALLOW;
    for (const host of access.hosts ?? []) {
      if (!this.#hosts.matches(host)) {
        return { allow: false, rule: "fetch.hosts", reason: `host not allowed: ${host}` };
      }
    }
    return ALLOW;
  }
}
