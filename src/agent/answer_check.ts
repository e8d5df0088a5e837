/**
 * `--output-schema`: the final answer must be one JSON value valid against a JSON
 * Schema. The app supplies the validator; this file holds what the model is told.
 */

/** Correction turns allowed before the run fails with exit 5. */
export const MAX_ANSWER_RETRIES = 2;

export function answerFormatSection(schema: unknown): string {
  return `# Final answer format

Your final answer (the message in which you call no tool) must be exactly one JSON value, \
with no prose and no code fence around it, valid against this JSON Schema:

${JSON.stringify(schema, null, 2)}`;
}

export function answerRetryPrompt(problem: string): string {
  return `Your final answer is not valid against the required JSON Schema: ${problem}
Reply again with only the corrected JSON value.`;
}

/** The JSON inside an answer; tolerates a code fence around it, which models often add. */
export function extractJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1] : trimmed) };
  } catch (err) {
    return { ok: false, problem: `it is not JSON (${(err as Error).message})` };
  }
}
