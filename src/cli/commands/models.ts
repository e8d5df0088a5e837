/** `mopac models [--json]`: the catalog's models and the configured providers, with their state. */
import type { Io } from "../io.ts";
import { parseFlags, splitCommon } from "../flags.ts";
import { EXIT } from "../exit_codes.ts";
import { readEnv } from "../../util/env.ts";

export async function modelsCommand(argv: string[], io: Io): Promise<number> {
  const { rest, load } = splitCommon(argv, io);
  const loaded = await load();
  const { values } = parseFlags(rest, { json: { type: "boolean" } }, "models");
  const { listModels, listProviders } = await import("../../catalog/mod.ts");
  const ctx = { config: loaded.config, env: readEnv };
  const providers = listProviders(ctx);
  const models = listModels(ctx);
  if (values.json) {
    io.out(JSON.stringify({ providers, models }, null, 2) + "\n");
    return EXIT.ok;
  }
  for (const p of providers) {
    io.out(`${p.id}  ${p.usable ? "ready" : "not ready"}  ${p.status}\n`);
    for (const m of models.filter((m) => m.provider_id === p.id)) {
      const ctxw = m.context_window ? `${Math.round(m.context_window / 1000)}k` : "?";
      const price = `$${m.pricing.input}/$${m.pricing.output} per 1M`;
      io.out(`  ${m.ref}  ${ctxw}  ${price}\n`);
    }
  }
  return EXIT.ok;
}
