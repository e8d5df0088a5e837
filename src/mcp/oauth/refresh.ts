/**
 * Refreshing a stored login. Under the store's lock the file is read again first:
 * when another process refreshed while this one waited, its token is taken as it is,
 * so a rotating refresh token is spent once. A refresh token the authorization server
 * refuses ends the login (the tokens are dropped, the registration kept); a server
 * that cannot be reached leaves it for the next run.
 */
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/server/auth/errors"
import { OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { McpOAuthConfig } from "./settings.ts";
import type { StoredTokens, TokenStore } from "./store.ts";
import { describeOAuthError, OAuthFailed, OAuthLoginRequired } from "./errors.ts";
import { expired, storedTokens } from "./tokens.ts";

export interface RefreshInput {
  server: string;
  /** The access token the caller has: a different, fresh one in the file means done. */
  used: string;
  cfg: McpOAuthConfig;
  log(line: string): void;
}

/** Whether two authorization server URLs name the same server (one trailing slash aside). */
function sameIssuer(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/$/, "");
    } catch {
      return u.replace(/\/$/, "");
    }
  };
  return norm(a) === norm(b);
}

export async function refreshStored(store: TokenStore, input: RefreshInput): Promise<StoredTokens> {
  const { server } = input;
  return await store.withLock(
    async () => {
      const data = await store.read();
      const tokens = data?.tokens;
      if (tokens && tokens.access_token !== input.used && !expired(tokens)) return tokens;
      const discovery = data?.discovery;
      const client = input.cfg.oauth_client_id
        ? { client_id: input.cfg.oauth_client_id, client_secret: input.cfg.oauth_client_secret }
        : data?.client;
      if (!tokens?.refresh_token || !discovery?.authorizationServerUrl || !client) {
        throw new OAuthLoginRequired(server, "has no login that can be renewed");
      }
      const issuer = discovery.authorizationServerUrl;
      if (tokens.issuer && !sameIssuer(tokens.issuer, issuer)) {
        throw new OAuthLoginRequired(server, "moved to another authorization server");
      }
      let fresh;
      try {
        fresh = await refreshAuthorization(issuer, {
          metadata: discovery.authorizationServerMetadata,
          clientInformation: client,
          refreshToken: tokens.refresh_token,
          resource: discovery.resourceMetadata?.resource,
        });
      } catch (err) {
        if (err instanceof OAuthError && !(err instanceof ServerError)) {
          await store.write({ ...data!, tokens: undefined });
          throw new OAuthLoginRequired(
            server,
            `has an expired login (the authorization server refused its refresh token: ${err.errorCode})`,
          );
        }
        throw new OAuthFailed(server, `refreshing the token failed: ${describeOAuthError(err)}`, {
          cause: err,
        });
      }
      const next: StoredTokens = { ...storedTokens(fresh, tokens.scope), issuer };
      await store.write({ ...data!, tokens: next });
      input.log(`mcp ${server}: OAuth token refreshed`);
      return next;
    },
    () => input.log(`mcp ${server}: waiting for another mopac process to refresh the OAuth token`),
  );
}
