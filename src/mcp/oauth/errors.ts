/**
 * Why a server's OAuth could not produce a token. Each message names the server and
 * what the operator does next; none carries a token, a code or a secret.
 */

/** Headless runs never start an interactive flow: the operator has to log in first. */
export class OAuthLoginRequired extends Error {
  constructor(readonly server: string, why: string) {
    super(
      `MCP server "${server}" ${why}: run \`mopac mcp login ${server}\` (an interactive ` +
        "login; a headless run never starts one)",
    );
    this.name = "OAuthLoginRequired";
  }
}

/** The server or its authorization server refused in a way a new login would not fix now. */
export class OAuthFailed extends Error {
  constructor(readonly server: string, why: string, options?: { cause?: unknown }) {
    super(`MCP server "${server}": OAuth failed: ${why}`, options);
    this.name = "OAuthFailed";
  }
}

export function isOAuthError(err: unknown): err is OAuthLoginRequired | OAuthFailed {
  return err instanceof OAuthLoginRequired || err instanceof OAuthFailed;
}

/** An SDK error as one line: OAuth errors by their code (their text is often empty). */
export function describeOAuthError(err: unknown): string {
  const e = err as { errorCode?: unknown; message?: unknown };
  const text = typeof e?.message === "string" ? e.message : String(err);
  if (typeof e?.errorCode === "string") return text ? `${e.errorCode}: ${text}` : e.errorCode;
  return text;
}
