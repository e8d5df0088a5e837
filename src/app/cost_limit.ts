/**
 * A cost limit mopac cannot enforce is refused before the run starts: a model with
 * no price (an id a gateway passes through, a configured model without costs) costs
 * 0 as far as the budget can see, so `--max-cost` would never stop it.
 */
import type { ResolvedModel } from "../catalog/types.ts";
import { UsageError } from "../util/errors.ts";
import type { ResolvedRun } from "./resolve_run.ts";

/** Exit 2 when a cost limit is set and a model the run may call has no price. */
export function requirePrices(
  resolved: Pick<ResolvedRun, "limits" | "model" | "smallModel" | "subAgent">,
): void {
  const limit = resolved.limits.max_cost;
  if (limit === undefined) return;
  const roles: Array<[string, ResolvedModel | undefined]> = [
    ["model", resolved.model],
    ["small model (titles, summaries)", resolved.smallModel],
    ["sub-agent model", resolved.subAgent?.model],
  ];
  const unpriced = new Map<string, { role: string; model: ResolvedModel }>();
  for (const [role, model] of roles) {
    const label = model && `${model.provider_id}/${model.model_id}`;
    if (model && label && !model.priced && !unpriced.has(label)) {
      unpriced.set(label, { role, model });
    }
  }
  if (unpriced.size === 0) return;
  const named = [...unpriced].map(([label, { role }]) => `${role} ${label}`).join(", ");
  const keys = [...unpriced.values()].map(({ model }) =>
    `providers.${model.provider_id}.models[] with "id": "${model.model_id}"`
  );
  throw new UsageError(
    `the cost limit ($${limit}) cannot be enforced: ${named} has no price, so its cost ` +
      "would count as 0",
    {
      hint: `give it prices (USD per 1M tokens) with cost_per_1m_in and cost_per_1m_out in ` +
        `${[...new Set(keys)].join(" and ")}, or drop the cost limit`,
    },
  );
}
