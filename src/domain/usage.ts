/**
 * Tokens a model used and what they cost. Prices come from the catalog; the sum
 * is worked out here so that the provider (which prices each response) and the
 * catalog (which holds the prices) do not depend on each other.
 */

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache (part of input_tokens). */
  cached_input_tokens: number;
  reasoning_tokens?: number;
  /** True when the provider sent no usage and these are our estimate. */
  estimated?: boolean;
}

/** Prices in USD per million tokens. */
export interface Pricing {
  input: number;
  output: number;
  /** Input tokens read back from the prompt cache. */
  cached_input: number;
  /** Input tokens written to the prompt cache, when the provider bills that separately. */
  cache_write?: number;
}

/** Usage of nothing yet: where totals start. */
export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
}

/** Sum of usages (for totals across turns). Estimated when any part was. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
  };
  const reasoning = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0);
  if (reasoning > 0) sum.reasoning_tokens = reasoning;
  if (a.estimated || b.estimated) sum.estimated = true;
  return sum;
}

const PER = 1_000_000;

/**
 * Cost of a response at `pricing`. Cached input is billed at the cached rate and
 * the rest of the input at the full rate, so a provider's prompt cache shows up in
 * the cost as it does on the invoice.
 */
export function costOf(usage: Usage, pricing: Pricing): number {
  const cached = Math.min(Math.max(usage.cached_input_tokens, 0), usage.input_tokens);
  const uncached = usage.input_tokens - cached;
  return (uncached * pricing.input + cached * pricing.cached_input +
    usage.output_tokens * pricing.output) / PER;
}
