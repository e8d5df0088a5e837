/**
 * The OAuth keys of one `mcp.<name>` block (crush's `oauth*` keys plus mopac's own) and
 * what they add up to: whether OAuth applies to the server, and which grant it uses.
 * Secrets here (`oauth_client_secret`, `oauth_idp.id_token`) are redacted like every
 * other configured secret; the private key stays in its file.
 */

export type OAuthGrant = "authorization_code" | "client_credentials";

/** Cross-app access (ID-JAG): the enterprise identity provider that vouches for the user. */
export interface McpOAuthIdp {
  issuer: string;
  token_endpoint: string;
  client_id: string;
  /** The user's ID token at that provider, exchanged for an ID-JAG (RFC 8693). */
  id_token: string;
}

export interface McpOAuthConfig {
  /** crush: false turns OAuth off; true (or any other oauth_* key) turns it on. */
  oauth?: boolean;
  /** A pre-registered client (no dynamic registration). */
  oauth_client_id?: string;
  oauth_client_secret?: string;
  /** Port of the loopback callback during `mopac mcp login`; default: any free port. */
  oauth_callback_port?: number;
  oauth_grant?: OAuthGrant;
  /** client_credentials with private_key_jwt: a PKCS#8 PEM file. */
  oauth_private_key_file?: string;
  /** JWS algorithm of that key (RS256, ES256, …); default RS256. */
  oauth_signing_algorithm?: string;
  /** An https URL used as client_id where the server supports client-ID metadata documents. */
  oauth_client_metadata_url?: string;
  /** Scopes asked for on top of what the server's challenge and metadata call for. */
  oauth_scopes?: string[];
  oauth_idp?: McpOAuthIdp;
}

/** How a server gets its tokens; "off" when OAuth does not apply. */
export type OAuthMode = "off" | "authorization_code" | "client_credentials" | "cross_app";

const OAUTH_KEYS = [
  "oauth_client_id",
  "oauth_client_secret",
  "oauth_callback_port",
  "oauth_grant",
  "oauth_private_key_file",
  "oauth_signing_algorithm",
  "oauth_client_metadata_url",
  "oauth_scopes",
  "oauth_idp",
] as const;

/**
 * OAuth applies to http and sse servers unless `oauth: false`, or unless the config
 * sends its own `Authorization` header and says nothing about OAuth (a static token
 * that the server refuses is not a reason to start logging in).
 */
export function oauthMode(
  cfg: McpOAuthConfig & { headers?: Record<string, string> },
  transport: "stdio" | "sse" | "http",
): OAuthMode {
  if (transport === "stdio" || cfg.oauth === false) return "off";
  const configured = cfg.oauth === true ||
    OAUTH_KEYS.some((k) => (cfg as Record<string, unknown>)[k] !== undefined);
  const staticAuth = Object.keys(cfg.headers ?? {}).some((h) =>
    h.toLowerCase() === "authorization"
  );
  if (!configured && staticAuth) return "off";
  if (cfg.oauth_idp) return "cross_app";
  return cfg.oauth_grant === "client_credentials" ? "client_credentials" : "authorization_code";
}

/** Space-separated scope strings as a set, for unions and subset checks. */
export function scopeSet(...scopes: Array<string | string[] | undefined>): Set<string> {
  const out = new Set<string>();
  for (const s of scopes) {
    const parts = Array.isArray(s) ? s : (s ?? "").split(/\s+/);
    for (const p of parts) if (p) out.add(p);
  }
  return out;
}

export function scopeString(scopes: Set<string>): string | undefined {
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}
