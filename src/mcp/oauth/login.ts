/**
 * The browser part of `mopac mcp login`: a loopback callback on 127.0.0.1, bound only
 * while the login runs, and the hand-over of the authorization URL: printed for the
 * user, and given to `--open-with CMD` (split on spaces, the URL appended) when set.
 * The callback accepts one answer whose `state` matches; anything else fails the login.
 */
import { finishedWithin } from "../../util/wait.ts";
import type { InteractiveLogin } from "./authorize.ts";

/** How long a login waits for the browser to come back. */
export const LOGIN_WAIT_MS = 5 * 60_000;

export interface LoginOptions {
  server: string;
  /** `oauth_callback_port`; 0 or absent: any free port. */
  port?: number;
  /** `--open-with CMD`. */
  openWith?: string;
  /** Where the URL and progress go (stderr). */
  say(line: string): void;
  waitMs?: number;
}

export interface LoopbackLogin extends InteractiveLogin {
  close(): Promise<void>;
}

type Answer = { code: string; state: string | null } | { error: string };

function page(title: string, text: string): Response {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return new Response(
    `<!doctype html><title>${esc(title)}</title><h1>${esc(title)}</h1><p>${esc(text)}</p>`,
    { status: title === "Logged in" ? 200 : 400, headers: { "content-type": "text/html" } },
  );
}

export function startLoopbackLogin(opts: LoginOptions): LoopbackLogin {
  let deliver: ((a: Answer) => void) | undefined;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    onListen: () => {},
  }, (req) => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    const q = url.searchParams;
    const error = q.get("error");
    const code = q.get("code");
    if (!deliver) return page("No login waiting", "mopac is not waiting for this answer.");
    if (error) {
      deliver({
        error: `${error}${q.get("error_description") ? `: ${q.get("error_description")}` : ""}`,
      });
      return page("Login failed", error);
    }
    if (!code) {
      deliver({ error: "the callback had no code" });
      return page("Login failed", "no authorization code");
    }
    deliver({ code, state: q.get("state") });
    return page("Logged in", `You can close this tab; mopac has the login for ${opts.server}.`);
  });
  // crush registers "localhost" too; the listener itself is on the loopback address only.
  const redirectUrl = `http://localhost:${server.addr.port}/callback`;

  return {
    redirectUrl,
    authorizations: 0,
    async authorize(authUrl: URL, state: string): Promise<string> {
      opts.say(`Open this URL to log in to MCP server "${opts.server}":\n  ${authUrl.href}`);
      let got: Answer | undefined;
      const outcome = new Promise<Answer>((resolve) => {
        deliver = resolve;
        if (opts.openWith) {
          void runOpener(opts.openWith, authUrl.href).then((why) => why && resolve({ error: why }));
        }
      }).then((a) => got = a);
      const ms = opts.waitMs ?? LOGIN_WAIT_MS;
      await finishedWithin(outcome, ms);
      deliver = undefined;
      if (!got) throw new Error(`no answer from the browser within ${ms / 1000}s`);
      if ("error" in got) throw new Error(`the authorization failed: ${got.error}`);
      if (got.state !== state) {
        throw new Error(
          "the callback's state does not match this login (a stale or forged answer)",
        );
      }
      return got.code;
    },
    async close() {
      await server.shutdown();
    },
  };
}

/**
 * Starts `cmd URL`. Resolves with why it failed (exit status and stderr), or with
 * undefined when it ended well (a browser opener returns at once).
 */
async function runOpener(cmd: string, url: string): Promise<string | undefined> {
  const [program, ...args] = cmd.trim().split(/\s+/);
  try {
    const out = await new Deno.Command(program, {
      args: [...args, url],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return undefined;
    const tail = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
    return `--open-with ${program} exited with code ${out.code}${tail ? `: ${tail}` : ""}`;
  } catch (err) {
    return `--open-with ${program} could not start: ${(err as Error).message}`;
  }
}
