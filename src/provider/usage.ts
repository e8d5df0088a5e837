/**
 * Token usage from whatever shape a provider sends, and an estimate when it
 * sends none. Cached input is read from every field we have seen it in; hidden
 * reasoning that some providers leave out of `completion_tokens` (xAI, Gemini:
 * `total_tokens` > prompt + completion) is billed as output, so it is counted as
 * output here too.
 */
import type { Usage } from "../domain/usage.ts";

/** Characters per token for estimates; a rough but common rule for English and code. */
const CHARS_PER_TOKEN = 4;

export function parseUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const u = raw as Record<string, unknown>;
  const prompt = num(u.prompt_tokens) ?? num(u.input_tokens);
  const completion = num(u.completion_tokens) ?? num(u.output_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const input = prompt ?? 0;
  let output = completion ?? 0;
  const total = num(u.total_tokens);
  if (total !== undefined && total > input + output) output = total - input;

  const promptDetails = obj(u.prompt_tokens_details) ?? obj(u.input_tokens_details);
  const cached = num(promptDetails?.cached_tokens) ?? num(u.prompt_cache_hit_tokens) ??
    num(u.cache_read_input_tokens) ?? num(u.cached_tokens) ?? 0;

  const completionDetails = obj(u.completion_tokens_details) ?? obj(u.output_tokens_details);
  const reasoning = num(completionDetails?.reasoning_tokens) ?? num(u.reasoning_tokens);

  const usage: Usage = {
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: Math.min(Math.max(cached, 0), input),
  };
  if (reasoning !== undefined && reasoning > 0) usage.reasoning_tokens = reasoning;
  return usage;
}

/** ~chars/4 of what was sent and what came back, marked as an estimate. */
export function estimateUsage(requestChars: number, responseChars: number): Usage {
  return {
    input_tokens: Math.ceil(requestChars / CHARS_PER_TOKEN),
    output_tokens: Math.ceil(responseChars / CHARS_PER_TOKEN),
    cached_input_tokens: 0,
    estimated: true,
  };
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" ? v as Record<string, unknown> : undefined;
}
