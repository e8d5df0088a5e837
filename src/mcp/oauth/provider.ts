/**
 * mopac's side of the SDK's OAuth client contract (`OAuthClientProvider`): what the
 * SDK's `auth()` asks of a client while it discovers, registers, redirects and swaps
 * codes for tokens. One provider serves one attempt at getting a token; the session
 * (session.ts) decides when an attempt is made and keeps what comes out of it.
 *
 * - authorization_code: a pre-registered client (`oauth_client_id`), a client-ID
 *   metadata document (`oauth_client_metadata_url`) or dynamic registration; the
 *   redirect goes to the loopback callback of `mopac mcp login`.
 * - client_credentials: `oauth_client_secret` (client_secret_basic or _post, as the
 *   server offers) or `oauth_private_key_file` (private_key_jwt).
 * - cross_app: the IdP's ID token is exchanged for an ID-JAG (RFC 8693), which is the
 *   assertion of a jwt-bearer grant (RFC 7523) at the MCP server's authorization server.
 */
import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth";
// @ts-types="@modelcontextprotocol/sdk/client/auth-extensions"
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { McpOAuthConfig, OAuthMode } from "./settings.ts";
import { OAuthFailed } from "./errors.ts";
import { exchangeIdToken } from "./cross_app.ts";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface ProviderSetup {
  server: string;
  serverUrl: string;
  cfg: McpOAuthConfig;
  mode: Exclude<OAuthMode, "off">;
  clientName: string;
  /** The loopback callback of `mopac mcp login` (authorization_code only). */
  redirectUrl?: string;
  /** A dynamically registered client from an earlier login. */
  storedClient?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  /** The PEM of `oauth_private_key_file`, read by the session. */
  privateKey?: string;
  /** Hands the authorization URL on (login only). */
  onRedirect?: (url: URL) => void;
}

export class MopacOAuthProvider implements OAuthClientProvider {
  /** The scope to ask for; the SDK passes it to machine grants through clientMetadata. */
  scope?: string;
  tokensSaved?: OAuthTokens;
  /** Set by saveClientInformation when the SDK registered (or bound) a client. */
  registered?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  readonly stateValue = crypto.randomUUID();
  addClientAuthentication?: AddClientAuthentication;
  #verifier?: string;

  constructor(private readonly setup: ProviderSetup) {
    this.discovery = setup.discovery;
    if (setup.mode === "client_credentials" && setup.privateKey) {
      const id = setup.cfg.oauth_client_id!;
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: id,
        subject: id,
        privateKey: setup.privateKey,
        alg: setup.cfg.oauth_signing_algorithm ?? "RS256",
      });
    }
  }

  get redirectUrl(): string | undefined {
    return this.setup.mode === "authorization_code" ? this.setup.redirectUrl : undefined;
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.mode === "authorization_code"
      ? this.setup.cfg.oauth_client_metadata_url
      : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { mode, cfg } = this.setup;
    if (mode !== "authorization_code") {
      return {
        client_name: this.setup.clientName,
        redirect_uris: [],
        grant_types: [mode === "cross_app" ? JWT_BEARER : "client_credentials"],
        token_endpoint_auth_method: this.addClientAuthentication
          ? "private_key_jwt"
          : "client_secret_basic",
        scope: this.scope,
      };
    }
    return {
      client_name: this.setup.clientName,
      redirect_uris: this.setup.redirectUrl ? [this.setup.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: cfg.oauth_client_secret ? "client_secret_basic" : "none",
      scope: this.scope,
    };
  }

  state(): string {
    return this.stateValue;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { cfg } = this.setup;
    if (cfg.oauth_client_id) {
      return { client_id: cfg.oauth_client_id, client_secret: cfg.oauth_client_secret };
    }
    if (this.registered) return this.registered;
    const stored = this.setup.storedClient;
    // A registration for another callback URL cannot finish this login: register again.
    if (stored && this.#usable(stored)) return stored;
    return undefined;
  }

  #configuredClient(): boolean {
    return this.setup.cfg.oauth_client_id !== undefined;
  }

  #usable(client: OAuthClientInformationMixed): boolean {
    if (client.client_id === this.setup.cfg.oauth_client_metadata_url) return true;
    const uris = (client as { redirect_uris?: string[] }).redirect_uris;
    return !this.setup.redirectUrl || !uris || uris.includes(this.setup.redirectUrl);
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // A configured client stays in config; only registrations are kept.
    if (this.#configuredClient()) return;
    this.registered = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.tokensSaved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.tokensSaved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    if (!this.setup.onRedirect) {
      throw new OAuthFailed(this.setup.server, "an interactive login was needed but not allowed");
    }
    this.setup.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new OAuthFailed(this.setup.server, "no PKCE verifier was kept");
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") {
      this.registered = undefined;
      this.setup.storedClient = undefined;
    }
    if (scope === "all" || scope === "tokens") this.tokensSaved = undefined;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** The grant of machine flows; undefined (the SDK's authorization_code) otherwise. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const { mode } = this.setup;
    if (mode === "authorization_code") return undefined;
    if (mode === "client_credentials") {
      const params = new URLSearchParams({ grant_type: "client_credentials" });
      if (scope) params.set("scope", scope);
      return params;
    }
    const params = new URLSearchParams({
      grant_type: JWT_BEARER,
      assertion: await exchangeIdToken({
        server: this.setup.server,
        idp: this.setup.cfg.oauth_idp!,
        // The ID-JAG names the MCP server's authorization server and the resource.
        audience: this.discovery?.authorizationServerMetadata?.issuer ??
          this.discovery?.authorizationServerUrl,
        resource: this.discovery?.resourceMetadata?.resource ?? this.setup.serverUrl,
        scope,
      }),
    });
    if (scope) params.set("scope", scope);
    return params;
  }
}
