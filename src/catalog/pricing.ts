/**
 * Cost of a response from catalog prices (USD per million tokens). Cached input
 * is billed at the cached rate and the rest of the input at the full rate, so a
 * provider's prompt cache shows up in the cost as it does on the invoice.
 */
import type { Pricing } from "./types.ts";
import type { Usage } from "../provider/types.ts";

const PER = 1_000_000;

export function costOf(usage: Usage, pricing: Pricing): number {
  const cached = Math.min(Math.max(usage.cached_input_tokens, 0), usage.input_tokens);
  const uncached = usage.input_tokens - cached;
  return (uncached * pricing.input + cached * pricing.cached_input +
    usage.output_tokens * pricing.output) / PER;
}
