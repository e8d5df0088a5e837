/**
 * Helpers of the OAuth end-to-end tests: a workspace whose one MCP server sits behind
 * the OAuth fixture (tests/_support/oauth_server.ts), a user data dir of its own (where
 * logins are kept), and `mopac` commands under narrow Deno flags.
 */
import type { ScriptedTurn } from "../_support/fake_openai.ts";
import type { OAuthFixture } from "../_support/oauth_server.ts";
import { DENO_RUN } from "../_support/deps.ts";
import type { MopacRun } from "../_support/run_mopac.ts";
import type { RunOptions, Workspace } from "../_support/workspace.ts";
import { mcpWorkspace } from "./_mcp_run.ts";

const OPENER_SCRIPT = new URL("../_support/oauth_opener.ts", import.meta.url).pathname;
/** `--open-with` for `mopac mcp login`: a script that plays the auto-approving browser. */
export const OPENER = [Deno.execPath(), ...DENO_RUN, "-A", OPENER_SCRIPT].join(" ");

export interface OAuthWorkspace extends Workspace {
  /** The user's data dir ($XDG_DATA_HOME); logins live under mopac/mcp-oauth. */
  userData: string;
  /** `mopac mcp login` of a server (default "prot") through the test browser. */
  login(server?: string): Promise<MopacRun>;
  /** Every file below a folder, with its text (what a leak check reads). */
  filesUnder(dir: string): Promise<Array<{ path: string; text: string }>>;
}

/**
 * The workspace's `run` and `spawn` read and write the user data dir and may start
 * `false` (a browser that fails); `extraEnv` is passed to every command.
 */
export async function oauthWorkspace(
  fx: OAuthFixture,
  turns: ScriptedTurn[],
  server: Record<string, unknown> = {},
  extraEnv: Record<string, string> = {},
): Promise<OAuthWorkspace> {
  const ws = await mcpWorkspace(turns, {
    prot: { type: "http", url: fx.mcpUrl, timeout: 30, ...server },
  }, { net: ["127.0.0.1"], run: ["false"] });
  const userData = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-userdata-" }));
  ws.perms.read!.push(userData);
  ws.perms.write!.push(userData);
  (ws.perms.env as string[]).push("XDG_DATA_HOME", ...Object.keys(extraEnv));
  const env = { XDG_DATA_HOME: userData, ...extraEnv };
  const withEnv = (opts: RunOptions): RunOptions => ({ ...opts, env: { ...env, ...opts.env } });
  const run = (args: string[], opts: RunOptions = {}) => ws.run(args, withEnv(opts));
  const close = async () => {
    await ws.close();
    await Deno.remove(userData, { recursive: true }).catch(() => {});
  };
  return {
    ...ws,
    userData,
    run,
    spawn: (args, opts = {}) => ws.spawn(args, withEnv(opts)),
    login: (name = "prot") => run(["mcp", "login", name, "--open-with", OPENER]),
    async filesUnder(dir: string) {
      const out: Array<{ path: string; text: string }> = [];
      const walk = async (d: string) => {
        for await (const e of Deno.readDir(d)) {
          const p = `${d}/${e.name}`;
          if (e.isDirectory) await walk(p);
          else if (e.isFile) out.push({ path: p, text: await Deno.readTextFile(p) });
        }
      };
      await walk(dir);
      return out;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The login files of the user data dir (the `.lock` files aside). */
export async function storedLogins(
  ws: OAuthWorkspace,
): Promise<Array<{ path: string; mode: number; data: Record<string, unknown> }>> {
  const dir = `${ws.userData}/mopac/mcp-oauth`;
  const out = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.endsWith(".json")) continue;
      const path = `${dir}/${e.name}`;
      out.push({
        path,
        mode: (await Deno.stat(path)).mode! & 0o777,
        data: JSON.parse(await Deno.readTextFile(path)),
      });
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

/** Lets time pass for the stored login: its access token expired a second ago. */
export async function expireStoredToken(
  ws: OAuthWorkspace,
): Promise<Awaited<ReturnType<typeof storedLogins>>> {
  const logins = await storedLogins(ws);
  for (const { path, data } of logins) {
    (data.tokens as Record<string, unknown>).expires_at = Date.now() - 1000;
    await Deno.writeTextFile(path, JSON.stringify(data));
  }
  return logins;
}
