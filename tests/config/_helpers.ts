/** A throwaway machine for config tests: HOME, XDG dirs, /etc stand-in and a real git repo. */
import { dirname, join } from "node:path";
import { loadConfig, type LoadOptions } from "../../src/config/mod.ts";

export interface Sandbox {
  root: string;
  home: string;
  xdgConfig: string;
  xdgData: string;
  systemFile: string;
  repo: string;
  env: Record<string, string>;
  write(path: string, text: string): Promise<string>;
  load(opts?: Partial<LoadOptions>): ReturnType<typeof loadConfig>;
  cleanup(): Promise<void>;
}

export async function makeSandbox(opts: { git?: boolean } = {}): Promise<Sandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-config-" }));
  const home = join(root, "home");
  const repo = join(root, "work", "repo");
  await Deno.mkdir(home, { recursive: true });
  await Deno.mkdir(repo, { recursive: true });
  if (opts.git !== false) {
    const out = await new Deno.Command("git", { args: ["init", "-q", repo] }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  }
  const sb: Sandbox = {
    root,
    home,
    xdgConfig: join(root, "xdg-config"),
    xdgData: join(root, "xdg-data"),
    systemFile: join(root, "etc", "mopac", "mopac.json"),
    repo,
    env: {},
    async write(path, text) {
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeTextFile(path, text);
      return path;
    },
    load(extra = {}) {
      return loadConfig({
        cwd: repo,
        env: (n) => sb.env[n],
        home,
        systemFile: sb.systemFile,
        // These tests are about layering: the repository's files are the test's own.
        // Tests of an untrusted project say trustProject: false.
        trustProject: true,
        ...extra,
      });
    },
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
  sb.env.XDG_CONFIG_HOME = sb.xdgConfig;
  sb.env.XDG_DATA_HOME = sb.xdgData;
  return sb;
}

/** Position (1-based line:col) of the first occurrence of `needle` in `text`. */
export function posOf(text: string, needle: string): string {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`${needle} not in text`);
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1].length + 1}`;
}
