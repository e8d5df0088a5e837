/**
 * Tokens without a user, for CI: client_credentials (client_secret_basic or _post as
 * the server offers, or private_key_jwt with `oauth_private_key_file`) and cross-app
 * access (the IdP's ID token exchanged for an ID-JAG, then the jwt-bearer grant). The
 * SDK's `auth()` does discovery and the token request; the token stays in memory.
 */
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { type McpOAuthConfig, type OAuthMode, scopeSet, scopeString } from "./settings.ts";
import type { StoredTokens } from "./store.ts";
import { storedTokens } from "./tokens.ts";
import { MopacOAuthProvider } from "./provider.ts";
import { describeOAuthError, OAuthFailed } from "./errors.ts";
import { expandHome } from "./paths.ts";

export interface MachineInput {
  server: string;
  url: string;
  cfg: McpOAuthConfig;
  mode: Exclude<OAuthMode, "off" | "authorization_code">;
  clientName: string;
  challenge: { resourceMetadataUrl?: URL; scope?: string };
}

export async function obtainMachineToken(input: MachineInput): Promise<StoredTokens> {
  const { server, url, cfg, challenge } = input;
  const provider = new MopacOAuthProvider({
    server,
    serverUrl: url,
    cfg,
    mode: input.mode,
    clientName: input.clientName,
    privateKey: await privateKey(server, input),
  });
  const scope = scopeString(scopeSet(challenge.scope, cfg.oauth_scopes));
  provider.scope = scope;
  try {
    const result = await auth(provider, {
      serverUrl: url,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      scope,
    });
    if (result !== "AUTHORIZED" || !provider.tokensSaved) {
      throw new OAuthFailed(server, "no token came back");
    }
  } catch (err) {
    if (err instanceof OAuthFailed) throw err;
    throw new OAuthFailed(server, describeOAuthError(err), { cause: err });
  }
  return storedTokens(provider.tokensSaved, scope);
}

async function privateKey(server: string, input: MachineInput): Promise<string | undefined> {
  const file = input.cfg.oauth_private_key_file;
  if (input.mode !== "client_credentials" || !file) return undefined;
  const path = expandHome(file);
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    const why = err instanceof Deno.errors.NotCapable
      ? `add --allow-read=${path}`
      : (err as Error).message;
    throw new OAuthFailed(server, `cannot read oauth_private_key_file ${path}: ${why}`);
  }
}
