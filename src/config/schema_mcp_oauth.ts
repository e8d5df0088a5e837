/**
 * The OAuth keys of an `mcp.<name>` block: crush's (`oauth`, `oauth_client_id`,
 * `oauth_client_secret`, `oauth_callback_port`) and mopac's for the flows crush lacks.
 * They live in the server's own block, so whoever may name the server decides its
 * OAuth too; the secrets among them are redacted with every other configured secret.
 */
import * as z from "zod";
import { madeOnce } from "../util/load_once.ts";

const SIGNING_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
] as const;

const httpUrl = (what: string) =>
  z.string().refine((v) => /^https?:\/\/[^/]/.test(v), {
    message: `${what} must be an http(s) URL`,
  });

/** Made at first use: a run whose config names no MCP server never needs them. */
export const mcpOAuthKeys = madeOnce(() => ({
  oauth: z.boolean().optional().describe(
    "false: no OAuth for this server; true: OAuth (the default for http/sse servers without an Authorization header)",
  ),
  oauth_client_id: z.string().min(1).optional().describe("A pre-registered OAuth client"),
  oauth_client_secret: z.string().optional().describe('Its secret (usually "$ENV_VAR")'),
  oauth_callback_port: z.int().min(0).max(65535).optional().describe(
    "Port of the loopback callback of `mopac mcp login`; default any free port",
  ),
  oauth_grant: z.enum(["authorization_code", "client_credentials"]).optional().describe(
    "mopac: authorization_code (default; `mopac mcp login`) or client_credentials (CI)",
  ),
  oauth_private_key_file: z.string().min(1).optional().describe(
    "mopac: PKCS#8 PEM private key for client_credentials with private_key_jwt",
  ),
  oauth_signing_algorithm: z.enum(SIGNING_ALGORITHMS).optional().describe(
    "mopac: JWS algorithm of oauth_private_key_file; default RS256",
  ),
  oauth_client_metadata_url: z.string().refine(
    (v) => /^https:\/\/[^/]+\/./.test(v),
    { message: "oauth_client_metadata_url must be an https URL with a path" },
  ).optional().describe(
    "mopac: client-ID metadata document URL, used as client_id where supported",
  ),
  oauth_scopes: z.array(z.string().regex(/^\S+$/, "a scope has no spaces")).optional().describe(
    "mopac: scopes to ask for besides those the server names",
  ),
  oauth_idp: z.strictObject({
    issuer: httpUrl("oauth_idp.issuer"),
    token_endpoint: httpUrl("oauth_idp.token_endpoint"),
    client_id: z.string().min(1),
    id_token: z.string().min(1).describe('The user\'s ID token at the IdP (usually "$ENV_VAR")'),
  }).optional().describe("mopac: cross-app access (token exchange for an ID-JAG, then jwt-bearer)"),
}));

type OAuthInput = { [K in keyof ReturnType<typeof mcpOAuthKeys>]?: unknown } & {
  type?: string;
  command?: string;
  url?: string;
};

/** Combinations that cannot work, each reported at the key to change. */
export function checkMcpOAuth(server: OAuthInput, kind: string, ctx: z.RefinementCtx): void {
  const issue = (key: string, message: string) =>
    ctx.addIssue({ code: "custom", path: [key], message });
  const set = (Object.keys(mcpOAuthKeys()) as Array<keyof ReturnType<typeof mcpOAuthKeys>>)
    .filter((k) => k !== "oauth" && server[k] !== undefined);
  if (kind === "stdio") {
    for (const key of set) issue(key, "OAuth applies to http and sse servers only");
    return;
  }
  if (server.oauth === false) {
    for (const key of set) issue(key, `${key} has no effect with "oauth": false`);
    return;
  }
  const machine = server.oauth_grant === "client_credentials";
  if (machine) {
    if (server.oauth_client_id === undefined) {
      issue("oauth_grant", "client_credentials needs oauth_client_id");
    }
    const secret = server.oauth_client_secret !== undefined;
    const key = server.oauth_private_key_file !== undefined;
    if (secret === key) {
      issue(
        "oauth_grant",
        "client_credentials needs exactly one of oauth_client_secret and oauth_private_key_file",
      );
    }
  } else {
    for (const key of ["oauth_private_key_file", "oauth_signing_algorithm"] as const) {
      if (server[key] !== undefined) issue(key, `${key} needs "oauth_grant": "client_credentials"`);
    }
  }
  if (server.oauth_idp !== undefined) {
    if (machine) {
      issue("oauth_idp", "cross-app access (oauth_idp) is its own grant; drop oauth_grant");
    }
    if (server.oauth_client_id === undefined || server.oauth_client_secret === undefined) {
      issue("oauth_idp", "cross-app access needs oauth_client_id and oauth_client_secret");
    }
  }
  if (server.oauth_client_metadata_url !== undefined && (machine || server.oauth_idp)) {
    issue("oauth_client_metadata_url", "a client-ID metadata document is for the login flow only");
  }
}
