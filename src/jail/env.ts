/**
 * The variables a jail sets for its commands. Package managers keep their caches in
 * mopac's cache folder (the only writable place besides the workspace that lasts
 * between runs), temporary files go to the jail's private /tmp, and in hosts mode
 * every common client is pointed at the proxy bridge, with loopback left direct so
 * a dev server inside the jail stays reachable.
 */
import { join } from "node:path";

/** Defaults (config `env` may still change them). */
export function cacheEnv(cacheDir: string): Record<string, string> {
  const at = (name: string) => join(cacheDir, name);
  return {
    XDG_CACHE_HOME: at("xdg"),
    npm_config_cache: at("npm"),
    YARN_CACHE_FOLDER: at("yarn"),
    npm_config_store_dir: at("pnpm"),
    BUN_INSTALL_CACHE_DIR: at("bun"),
    PIP_CACHE_DIR: at("pip"),
    DENO_DIR: at("deno"),
    GOCACHE: at("go-build"),
    GOMODCACHE: at("go-mod"),
    CARGO_HOME: at("cargo"),
  };
}

/** Forced: the jail's temporary folder. */
export function tmpEnv(tmpDir: string): Record<string, string> {
  return { TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir };
}

/**
 * Forced in hosts mode: the proxy, for curl, git, npm, pip, Deno, Node and the rest.
 * Loopback stays direct (the jail's own servers) except an address the allowlist
 * names: that one is the host's, reached through the proxy.
 */
export function proxyEnv(port: number, hosts: readonly string[] = []): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const listed = new Set(hosts.map(hostPart));
  const direct = ["localhost", "127.0.0.1", "::1"].filter((h) => !listed.has(h)).join(",");
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    // Node's own fetch and https ignore the variables above unless told (Node ≥ 22.18).
    NODE_USE_ENV_PROXY: "1",
  };
}

/** `[::1]:80` → `::1`, `127.0.0.1:80` → `127.0.0.1`, `::1` → `::1`. */
function hostPart(entry: string): string {
  const h = entry.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  return h.split(":").length === 2 ? h.slice(0, h.indexOf(":")) : h;
}
