/** What is kept of a token response, and when it counts as expired. */
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth";
import type { StoredTokens } from "./store.ts";

/** Tokens this close to their expiry are refreshed before use. */
const EXPIRY_SKEW_MS = 30_000;

export function expired(tokens: StoredTokens, now = Date.now()): boolean {
  return tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_SKEW_MS <= now;
}

/** The response with its scope (the requested one when the server did not say) and expiry. */
export function storedTokens(tokens: OAuthTokens, requested?: string): StoredTokens {
  const out: StoredTokens = { ...tokens, scope: tokens.scope ?? requested };
  if (typeof tokens.expires_in === "number") out.expires_at = Date.now() + tokens.expires_in * 1000;
  return out;
}
