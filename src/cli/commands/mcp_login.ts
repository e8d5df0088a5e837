/**
 * `mopac mcp login SERVER [--open-with CMD]` and `mopac mcp logout SERVER`. Login is
 * the one place mopac runs the interactive authorization-code flow: it connects without
 * the stored token (kept until a new one replaces it), and when the server challenges
 * it prints the authorization URL (or hands it to CMD) and waits for the browser on a
 * loopback callback that is bound only for the login. Exit 0 logged in (or nothing
 * needed), 2 usage, 6 failed.
 */
import { EXIT } from "../exit_codes.ts";
import { type McpServerConfig, startTimeoutMs, transportKind } from "../../mcp/config.ts";
import { createMcpManager } from "../../mcp/manager.ts";
import { oauthMode } from "../../mcp/oauth/settings.ts";
import { LOGIN_WAIT_MS, startLoopbackLogin } from "../../mcp/oauth/login.ts";
import { TokenStore } from "../../mcp/oauth/store.ts";
import { errorText } from "../../mcp/errors.ts";

/** What login and logout get from `mopac mcp` (a part of its McpCommandIo). */
export interface McpLoginIo {
  stdout(s: string): void;
  stderr(s: string): void;
  servers: Record<string, McpServerConfig>;
  logDir: string;
  /** Where OAuth logins are kept (the user's data dir); absent: nowhere to keep one. */
  oauthDir?: string;
}

function usable(io: McpLoginIo, server: string): string | undefined {
  const cfg = io.servers[server];
  const kind = transportKind(cfg);
  if (cfg.disabled) return `MCP server "${server}" is disabled in the config`;
  if (kind === "stdio") {
    return `MCP server "${server}" runs over stdio; OAuth is for http and sse servers`;
  }
  if (oauthMode(cfg, kind) === "off") {
    return `OAuth is off for MCP server "${server}" ("oauth": false, or a configured ` +
      "Authorization header without oauth keys)";
  }
  if (!io.oauthDir) return "no folder for OAuth logins: set HOME or XDG_DATA_HOME";
  return undefined;
}

export async function login(
  io: McpLoginIo,
  server: string,
  openWith: string | undefined,
): Promise<number> {
  const problem = usable(io, server);
  if (problem) {
    io.stderr(`mopac: ${problem}\n`);
    return EXIT.usage;
  }
  const cfg = io.servers[server];
  const mode = oauthMode(cfg, transportKind(cfg));
  const loopback = startLoopbackLogin({
    server,
    port: cfg.oauth_callback_port,
    openWith,
    say: (line) => io.stderr(`${line}\n`),
  });
  // The browser may take minutes: the start (where the login happens) must outwait it.
  const start_timeout = (startTimeoutMs(cfg) + LOGIN_WAIT_MS) / 1000;
  const manager = createMcpManager({ [server]: { ...cfg, start_timeout, required: true } }, {
    logDir: io.logDir,
    log: (line) => io.stderr(`${line}\n`),
    oauth: { dir: io.oauthDir!, clientName: "mopac", interactive: loopback },
  });
  try {
    const oauth = manager.connection(server)!.oauth!;
    if (mode === "authorization_code") await oauth.beginLogin();
    const [status] = await manager.start();
    if (status.status !== "connected") {
      io.stderr(`mopac: login to MCP server "${server}" failed: ${status.error}\n`);
      return EXIT.tool;
    }
    if (mode !== "authorization_code") {
      io.stdout(
        `MCP server "${server}" uses ${mode}: runs get their tokens themselves; ` +
          `connected with ${status.tools} tools\n`,
      );
    } else if (!oauth.hasToken) {
      io.stdout(`MCP server "${server}" did not ask for a login; nothing stored\n`);
    } else {
      const scope = oauth.grantedScope ? ` (scope "${oauth.grantedScope}")` : "";
      io.stdout(`logged in to MCP server "${server}"${scope}; ${status.tools} tools\n`);
    }
    return EXIT.ok;
  } catch (err) {
    io.stderr(`mopac: login to MCP server "${server}" failed: ${errorText(err)}\n`);
    return EXIT.tool;
  } finally {
    await manager.close();
    await loopback.close();
  }
}

export async function logout(io: McpLoginIo, server: string): Promise<number> {
  const problem = usable(io, server);
  if (problem) {
    io.stderr(`mopac: ${problem}\n`);
    return EXIT.usage;
  }
  const store = await TokenStore.open(io.oauthDir!, server, io.servers[server].url!);
  const removed = await store.remove();
  io.stdout(
    removed
      ? `logged out of MCP server "${server}"\n`
      : `no stored login for MCP server "${server}"\n`,
  );
  return EXIT.ok;
}
