/**
 * The authorization-code flow of `mopac mcp login`, on the SDK's `auth()`: discovery
 * (protected-resource metadata, then authorization-server metadata, with the spec's
 * fallbacks), registration (pre-registered, client-ID metadata document, or dynamic),
 * PKCE S256 with a `state`, the resource indicator, and the code exchange. mopac
 * chooses the scope: the challenge's, else the resource's `scopes_supported`, plus
 * `oauth_scopes`, plus what an earlier run was refused for, plus `offline_access`
 * when the authorization server offers it (for a refresh token); none → no scope.
 */
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { auth, discoverOAuthServerInfo } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthServerInfo } from "@modelcontextprotocol/sdk/client/auth";
import { type McpOAuthConfig, scopeSet, scopeString } from "./settings.ts";
import type { StoredTokens, TokenStore } from "./store.ts";
import { storedTokens } from "./tokens.ts";
import { MopacOAuthProvider } from "./provider.ts";
import { describeOAuthError, OAuthFailed } from "./errors.ts";

/** Authorizations one login may start (first login plus step-ups). */
export const MAX_AUTHORIZATIONS = 3;

export interface InteractiveLogin {
  /** The loopback callback URL, registered as the redirect URI. */
  redirectUrl: string;
  /** Hands `url` to the user and resolves with the code the callback got for `state`. */
  authorize(url: URL, state: string): Promise<string>;
  /** Authorizations started so far in this login. */
  authorizations: number;
}

export interface AuthorizeInput {
  server: string;
  url: string;
  cfg: McpOAuthConfig;
  clientName: string;
  challenge: { resourceMetadataUrl?: URL; scope?: string };
  interactive: InteractiveLogin;
  log(line: string): void;
}

export function chooseScope(
  challengeScope: string | undefined,
  info: OAuthServerInfo,
  ...extra: Array<string | string[] | undefined>
): string | undefined {
  const base = challengeScope ?? info.resourceMetadata?.scopes_supported;
  const scopes = scopeSet(base, ...extra);
  if (info.authorizationServerMetadata?.scopes_supported?.includes("offline_access")) {
    scopes.add("offline_access");
  }
  return scopeString(scopes);
}

export async function authorizeInteractively(
  store: TokenStore,
  input: AuthorizeInput,
): Promise<StoredTokens> {
  const { server, url, cfg, interactive, challenge } = input;
  if (++interactive.authorizations > MAX_AUTHORIZATIONS) {
    throw new OAuthFailed(
      server,
      `gave up after ${MAX_AUTHORIZATIONS} authorizations in one login`,
    );
  }
  const data = await store.read();
  let authorizationUrl: URL | undefined;
  const provider = new MopacOAuthProvider({
    server,
    serverUrl: url,
    cfg,
    mode: "authorization_code",
    clientName: input.clientName,
    redirectUrl: interactive.redirectUrl,
    storedClient: data?.client,
    onRedirect: (u) => authorizationUrl = u,
  });
  let scope: string | undefined;
  try {
    const info = await discoverOAuthServerInfo(url, {
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    provider.saveDiscoveryState({
      ...info,
      resourceMetadataUrl: challenge.resourceMetadataUrl?.href,
    });
    scope = chooseScope(challenge.scope, info, cfg.oauth_scopes, data?.pending_scope);
    provider.scope = scope;
    const options = { serverUrl: url, scope, resourceMetadataUrl: challenge.resourceMetadataUrl };
    let result = await auth(provider, options);
    if (result === "REDIRECT") {
      const code = await interactive.authorize(authorizationUrl!, provider.stateValue);
      result = await auth(provider, { ...options, authorizationCode: code });
    }
    if (result !== "AUTHORIZED" || !provider.tokensSaved) {
      throw new OAuthFailed(server, "the authorization server gave no token");
    }
  } catch (err) {
    if (err instanceof OAuthFailed) throw err;
    throw new OAuthFailed(server, describeOAuthError(err), { cause: err });
  }
  const tokens = storedTokens(provider.tokensSaved, scope);
  const granted = scopeSet(tokens.scope);
  await store.update((d) => ({
    url,
    // A configured client stays in config; a registration is kept for the next login.
    client: cfg.oauth_client_id ? undefined : provider.clientInformation(),
    discovery: provider.discovery,
    tokens,
    pending_scope: scopeString(
      new Set([...scopeSet(d?.pending_scope)].filter((s) => !granted.has(s))),
    ),
  }));
  input.log(`mcp ${server}: logged in${tokens.scope ? ` (scope "${tokens.scope}")` : ""}`);
  return tokens;
}
