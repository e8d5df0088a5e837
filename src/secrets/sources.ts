/**
 * Which values are secret. For a run: the keys of the models in use, header values
 * of MCP servers and providers, the OAuth client secrets and ID tokens of MCP
 * servers, and every environment variable that config references (OAuth tokens
 * join the run's redactor as they are loaded or obtained, see Redactor.add). For a cassette: only the model's key and its auth-like extra headers
 * (a replay compares prompts, so nothing else may be rewritten there).
 */
import type { LoadedConfig } from "../config/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { readEnv } from "../util/env.ts";
import { collectSecrets, type Redactor } from "./redactor.ts";

/** The redactor of a run: every secret that config and the models in use hold. */
export function runSecrets(loaded: LoadedConfig, models: ResolvedModel[]): Redactor {
  const values: Array<string | undefined> = [];
  for (const m of models) {
    values.push(m.api_key, ...Object.values(m.extra_headers ?? {}));
  }
  const { config } = loaded;
  for (const p of Object.values(config.providers ?? {})) {
    values.push(p.api_key, ...Object.values(p.extra_headers ?? {}));
  }
  for (const s of Object.values(config.mcp ?? {})) {
    values.push(...Object.values(s.headers ?? {}), ...Object.values(s.env ?? {}));
    values.push(s.oauth_client_secret, s.oauth_idp?.id_token);
  }
  for (const name of loaded.referencedEnv) values.push(readEnv(name));
  // A bearer header's token alone is the secret too.
  for (const v of [...values]) {
    const m = v ? /^(?:Bearer|Basic|token)\s+(.+)$/i.exec(v) : null;
    if (m) values.push(m[1]);
  }
  return collectSecrets(values);
}

/** Values that must never reach a cassette: the key and auth-like extra headers. */
export function cassetteSecrets(model: ResolvedModel): Redactor {
  const out: string[] = [];
  if (model.api_key) out.push(model.api_key);
  for (const [k, v] of Object.entries(model.extra_headers ?? {})) {
    if (/auth|key|token|secret|cookie/i.test(k)) out.push(v.replace(/^Bearer\s+/i, ""), v);
  }
  // Shorter than a run's redactor allows: a cassette is shared, and a short key is still a key.
  return collectSecrets(out, { minLength: 4 });
}
