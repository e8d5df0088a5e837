/**
 * An OAuth-protected MCP server for tests, on 127.0.0.1: a Streamable HTTP endpoint
 * (`/mcp`, JSON answers, tools `whoami` and `echo_token`) that wants a bearer token, and the
 * authorization server that issues them (RFC 9728 + RFC 8414 metadata, dynamic
 * registration, an auto-approving /authorize with PKCE S256, and /token for
 * authorization_code, rotating refresh_token and client_credentials). Options can be
 * changed between steps of a test; counters and holds let a test see what happened.
 */

export interface OAuthFixtureOptions {
  /** Lifetime of new access tokens, in seconds (0: expired on arrival). */
  accessTtl: number;
  /** Refuse every refresh grant (an expired or revoked refresh token). */
  refuseRefresh: boolean;
  /** Clients allowed client_credentials (client_secret_basic): id → secret. */
  clients: Record<string, string>;
  /**
   * Another MCP server (e.g. the fixture over legacy SSE) to put behind the tokens: every
   * path that is not the authorization server's is passed on to it once the bearer is valid.
   */
  upstream?: string;
}

export interface OAuthFixture {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  mcpUrl: string;
  opts: OAuthFixtureOptions;
  counts: { authorize: number; register: number; refresh: number; code: number; client: number };
  /** Access tokens that reached /mcp, in order. */
  seen: string[];
  /** Every token issued (access and refresh), to look for on disk. */
  issued: string[];
  /** Makes the next refresh wait until `release()`; `reached` resolves when it arrives. */
  holdRefresh(): { reached: Promise<void>; release(): void };
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Code {
  challenge: string;
  redirect: string;
  scope?: string;
}

async function s256(verifier: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(hash)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

export function startOAuthFixture(opts: Partial<OAuthFixtureOptions> = {}): OAuthFixture {
  const options: OAuthFixtureOptions = {
    accessTtl: 3600,
    refuseRefresh: false,
    clients: {},
    ...opts,
  };
  const upstream = options.upstream ? new URL(options.upstream) : undefined;
  const mcpPath = upstream?.pathname ?? "/mcp";
  const counts = { authorize: 0, register: 0, refresh: 0, code: 0, client: 0 };
  const codes = new Map<string, Code>();
  const access = new Map<string, string>(); // token → how it was obtained
  const refresh = new Set<string>();
  const seen: string[] = [];
  const issued: string[] = [];
  let hold: { reached: () => void; released: Promise<void> } | undefined;
  /** Releases of holds given out, so close() never waits on a held request. */
  const releases: Array<() => void> = [];
  let base = "";

  const issue = (grant: string, withRefresh: boolean, scope?: string) => {
    const token = `at-${grant}-${crypto.randomUUID()}`;
    access.set(token, grant);
    issued.push(token);
    const body: Record<string, unknown> = {
      access_token: token,
      token_type: "Bearer",
      expires_in: options.accessTtl,
    };
    if (scope) body.scope = scope;
    if (withRefresh) {
      const r = `rt-${crypto.randomUUID()}`;
      refresh.add(r);
      issued.push(r);
      body.refresh_token = r;
    }
    return json(body);
  };

  const token = async (req: Request): Promise<Response> => {
    const form = new URLSearchParams(await req.text());
    const grant = form.get("grant_type");
    if (grant === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      if (
        !code || code.challenge !== await s256(verifier) ||
        code.redirect !== form.get("redirect_uri")
      ) {
        return json({ error: "invalid_grant" }, 400);
      }
      counts.code++;
      return issue("code", true, code.scope);
    }
    if (grant === "refresh_token") {
      counts.refresh++;
      if (hold) {
        const h = hold;
        hold = undefined;
        h.reached();
        await h.released;
      }
      const r = form.get("refresh_token") ?? "";
      if (options.refuseRefresh || !refresh.delete(r)) return json({ error: "invalid_grant" }, 400);
      return issue("refresh", true);
    }
    if (grant === "client_credentials") {
      const basic = (req.headers.get("authorization") ?? "").replace(/^Basic /, "");
      const [id, secret] = atob(basic || "Og==").split(":");
      if (!id || options.clients[id] !== secret) return json({ error: "invalid_client" }, 401);
      counts.client++;
      return issue("client", false, form.get("scope") ?? undefined);
    }
    return json({ error: "unsupported_grant_type" }, 400);
  };

  const challenge = (path: string) =>
    json({ error: "invalid_token" }, 401, {
      "www-authenticate":
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource${path}"`,
    });

  /** With `upstream`: the request, bearer checked, passed on as it is (streams too). */
  const proxy = async (req: Request, url: URL): Promise<Response> => {
    const bearer = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    if (!access.has(bearer)) return challenge(mcpPath);
    seen.push(bearer);
    const headers = new Headers(req.headers);
    headers.delete("authorization");
    headers.delete("host");
    const res = await fetch(new URL(url.pathname + url.search, upstream!), {
      method: req.method,
      headers,
      body: req.body,
    });
    return new Response(res.body, { status: res.status, headers: res.headers });
  };

  const mcp = async (req: Request): Promise<Response> => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const bearer = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    if (!access.has(bearer)) return challenge("/mcp");
    seen.push(bearer);
    const msg = await req.json();
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const reply = (result: unknown) => json({ jsonrpc: "2.0", id: msg.id, result });
    switch (msg.method) {
      case "initialize":
        return reply({
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "oauth-fixture", version: "1.0.0" },
        });
      case "tools/list":
        return reply({
          tools: [{
            name: "whoami",
            description: "Says how the caller's token was obtained",
            inputSchema: { type: "object", properties: {} },
          }, {
            name: "echo_token",
            description: "Echoes the caller's bearer token (a leak mopac must redact)",
            inputSchema: { type: "object", properties: {} },
          }],
        });
      case "tools/call": {
        const text = msg.params.name === "echo_token"
          ? `your token is ${bearer}`
          : `token from ${access.get(bearer)}`;
        return reply({ content: [{ type: "text", text }] });
      }
      default:
        return reply({});
    }
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === `/.well-known/oauth-protected-resource${mcpPath}`) {
      return json({ resource: `${base}${mcpPath}`, authorization_servers: [base] });
    }
    switch (url.pathname) {
      case "/.well-known/oauth-authorization-server":
        return json({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
          scopes_supported: ["mcp", "offline_access"],
        });
      case "/register": {
        counts.register++;
        const meta = await req.json();
        return json({ ...meta, client_id: `dyn-${counts.register}` }, 201);
      }
      case "/authorize": {
        counts.authorize++;
        const q = url.searchParams;
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
          return new Response("PKCE S256 required", { status: 400 });
        }
        const code = crypto.randomUUID();
        const redirect = q.get("redirect_uri")!;
        codes.set(code, {
          challenge: q.get("code_challenge")!,
          redirect,
          scope: q.get("scope") ?? undefined,
        });
        const back = new URL(redirect);
        back.searchParams.set("code", code);
        if (q.get("state")) back.searchParams.set("state", q.get("state")!);
        return Response.redirect(back.href, 302);
      }
      case "/token":
        return await token(req);
      case "/mcp":
        if (!upstream) return await mcp(req);
        return await proxy(req, url);
      default:
        return upstream ? await proxy(req, url) : new Response("not found", { status: 404 });
    }
  });
  base = `http://127.0.0.1:${server.addr.port}`;

  const close = () => {
    releases.forEach((release) => release());
    return server.shutdown();
  };
  return {
    url: base,
    mcpUrl: `${base}${mcpPath}`,
    opts: options,
    counts,
    seen,
    issued,
    holdRefresh() {
      let reached!: () => void;
      let release!: () => void;
      const r = new Promise<void>((resolve) => reached = resolve);
      const released = new Promise<void>((resolve) => release = resolve);
      hold = { reached, released };
      releases.push(release);
      return { reached: r, release };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
