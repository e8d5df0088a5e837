/**
 * The fetch the SDK's http and sse transports use for a server with OAuth: each
 * request to the server's origin carries the session's bearer token; a challenge
 * (401, or 403 `insufficient_scope`) is answered by the session with a new token and
 * the request is sent once more. A second challenge fails the request: the server
 * does not take what it asked for, and asking again would loop.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthFailed } from "./errors.ts";

export interface Challenge {
  status: 401 | 403;
  resourceMetadataUrl?: URL;
  scope?: string;
}

/** What the session needs to offer (session.ts). */
export interface TokenSource {
  readonly server: string;
  readonly url: string;
  token(): Promise<string | undefined>;
  answer(challenge: Challenge, used: string | undefined): Promise<string>;
}

function challengeOf(res: Response): Challenge | undefined {
  if (res.status !== 401 && res.status !== 403) return undefined;
  const params = extractWWWAuthenticateParams(res);
  if (res.status === 403 && params.error !== "insufficient_scope") return undefined;
  return {
    status: res.status,
    resourceMetadataUrl: params.resourceMetadataUrl,
    scope: params.scope,
  };
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit {
  if (!token) return init ?? {};
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return { ...init, headers };
}

export function oauthFetch(source: TokenSource, next: FetchLike): FetchLike {
  const origin = new URL(source.url).origin;
  return async (input, init) => {
    // Tokens go to the server they were issued for, and nowhere else.
    if (new URL(String(input)).origin !== origin) return await next(input, init);
    const used = await source.token();
    const res = await next(input, withBearer(init, used));
    const challenge = challengeOf(res);
    if (!challenge) return res;
    await res.body?.cancel().catch(() => {});
    const token = await source.answer(challenge, used);
    const retry = await next(input, withBearer(init, token));
    const again = challengeOf(retry);
    if (!again) return retry;
    await retry.body?.cancel().catch(() => {});
    throw new OAuthFailed(
      source.server,
      `the server still answers HTTP ${again.status} with the new token` +
        (again.scope ? ` (it asks for scope "${again.scope}")` : ""),
    );
  };
}
