/**
 * Keeps secret values out of everything mopac writes: session records, logs and
 * events. The values are the keys of the models in use, header values of MCP
 * servers and providers, and every environment variable that config references.
 */
import type { LoadedConfig } from "../config/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { collectSecrets, type Redactor } from "../permission/secrets.ts";
import type { SessionWriter } from "../session/types.ts";
import { readEnv } from "../util/env.ts";

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
  }
  for (const name of loaded.referencedEnv) values.push(readEnv(name));
  // A bearer header's token alone is the secret too.
  for (const v of [...values]) {
    const m = v ? /^(?:Bearer|Basic|token)\s+(.+)$/i.exec(v) : null;
    if (m) values.push(m[1]);
  }
  return collectSecrets(values);
}

/** A session writer that redacts every record before it is written. */
export function secretSafeWriter<W extends SessionWriter>(
  inner: W,
  redactor: Redactor,
): SessionWriter {
  if (redactor.size === 0) return inner;
  return {
    id: inner.id,
    saveMessage: (m, opts) => inner.saveMessage(redactor.redactValue(m), opts),
    saveMeta: (meta) => inner.saveMeta(redactor.redactValue(meta)),
    recordChange: (change, id) => inner.recordChange(redactor.redactValue(change), id),
    flush: () => inner.flush(),
  };
}
