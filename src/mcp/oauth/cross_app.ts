/**
 * Cross-app access (ID-JAG), step one: at the enterprise identity provider, the
 * user's ID token is exchanged (RFC 8693) for an ID-JAG naming the MCP server's
 * authorization server (audience) and the resource. Step two, the jwt-bearer grant
 * with it as the assertion, is an ordinary token request (provider.ts).
 */
import type { McpOAuthIdp } from "./settings.ts";
import { OAuthFailed } from "./errors.ts";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

export interface ExchangeInput {
  server: string;
  idp: McpOAuthIdp;
  audience?: string;
  resource: string;
  scope?: string;
}

/** The ID-JAG; the error names the IdP and what it said, never the tokens. */
export async function exchangeIdToken(input: ExchangeInput): Promise<string> {
  const { idp, server } = input;
  if (!input.audience) throw new OAuthFailed(server, "the authorization server was not discovered");
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    audience: input.audience,
    resource: input.resource,
    subject_token: idp.id_token,
    subject_token_type: ID_TOKEN,
    client_id: idp.client_id,
  });
  if (input.scope) body.set("scope", input.scope);
  let res: Response;
  try {
    res = await fetch(idp.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
    });
  } catch (err) {
    throw new OAuthFailed(
      server,
      `the identity provider ${idp.issuer} is unreachable: ${(err as Error).message}`,
      { cause: err },
    );
  }
  let answer: { access_token?: unknown; error?: unknown };
  try {
    answer = JSON.parse(await res.text());
  } catch {
    answer = {};
  }
  if (!res.ok || typeof answer.access_token !== "string") {
    const why = typeof answer.error === "string" ? answer.error : `HTTP ${res.status}`;
    throw new OAuthFailed(
      server,
      `the identity provider ${idp.issuer} refused the token exchange (${why})`,
    );
  }
  return answer.access_token;
}
