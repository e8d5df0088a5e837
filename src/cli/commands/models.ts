/**
 * `mopac models [FILTER] [--json]`: the catalog's models and the configured providers,
 * with their state. FILTER keeps the providers and models whose id contains it.
 */
import type { Io } from "../io.ts";
import { parseFlags, splitCommon } from "../flags.ts";
import { MODELS_OPTIONS } from "../command_specs.ts";
import { EXIT } from "../exit_codes.ts";
import { readEnv } from "../../util/env.ts";
import { UsageError } from "../../util/errors.ts";

export async function modelsCommand(argv: string[], io: Io): Promise<number> {
  const { rest, load } = splitCommon(argv, io);
  const { values, positionals } = parseFlags(rest, MODELS_OPTIONS, "models");
  if (positionals.length > 1) {
    throw new UsageError(`models takes one FILTER, got ${positionals.length} words`, {
      hint: "mopac models gpt lists the models whose provider/model contains 'gpt'",
    });
  }
  const loaded = await load();
  const { listModels, listProviders } = await import("../../catalog/mod.ts");
  const ctx = { config: loaded.config, env: readEnv };
  const filter = positionals[0]?.toLowerCase();
  const matches = (text: string) => filter === undefined || text.toLowerCase().includes(filter);
  const models = listModels(ctx).filter((m) => matches(m.ref));
  const providers = listProviders(ctx).filter((p) =>
    matches(p.id) || models.some((m) => m.provider_id === p.id)
  );
  if (filter !== undefined && providers.length === 0) {
    io.err(`mopac: no provider or model matches '${positionals[0]}'\n`);
  }
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
