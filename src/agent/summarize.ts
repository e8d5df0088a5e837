/**
 * Auto-summarize: when the context window is nearly full, the small model writes a
 * summary and the conversation continues from it. The session keeps the full
 * history; only what is sent shrinks.
 */
import type { Provider, ProviderTurn } from "../provider/types.ts";
import { AgentError } from "../util/errors.ts";
import { type Message, textOf, userMessage } from "../domain/message.ts";

export interface Summarizer {
  provider: Provider;
  /** Context window of the large model, in tokens. */
  contextWindow: number;
  /** Context window of the summarizing (small) model; default contextWindow. */
  summaryWindow?: number;
}

const SUMMARY_SYSTEM = `You summarize a coding agent's conversation so that the agent can \
continue the task from your summary alone: the earlier messages will be gone, so be thorough. \
Write plain text with these sections:
Task: what the user asked for, in their words, with every constraint they gave.
Done so far: files read and changed (paths, what changed), commands run and their outcome, \
including what was tried and failed.
Current state: what works, what is failing, open errors with their exact messages.
Next steps: what remains, in order, each specific (file, function, command).
Keep file paths, line numbers, identifiers, commands and error messages exact. Leave out \
pleasantries.`;

export const SUMMARY_PREFIX =
  "This task continues from an earlier conversation that was summarized to save context.\n\nSummary:\n";

/**
 * True when the remaining room is at most 20k tokens (windows over 200k) or at
 * most 20% of the window (smaller ones), as crush does.
 */
export function needsSummary(usedTokens: number, contextWindow: number): boolean {
  const remaining = contextWindow - usedTokens;
  if (contextWindow > 200_000) return remaining <= 20_000;
  return remaining <= contextWindow * 0.2;
}

/** Rough size of messages in tokens when the provider has not told us yet. */
export function estimateTokens(system: string, messages: Message[]): number {
  let chars = system.length;
  for (const m of messages) chars += JSON.stringify(m.parts).length;
  return Math.ceil(chars / 4);
}

export async function writeSummary(
  s: Summarizer,
  messages: Message[],
  signal: AbortSignal,
  now: number,
): Promise<ProviderTurn & { text: string }> {
  // A plain transcript, not the raw messages: any provider accepts it without tools.
  // It must fit the small model, whose window may be far smaller than the large one's.
  const window = s.summaryWindow ?? s.contextWindow;
  const budget = Math.max(4_000, Math.floor(window * 0.6) * 4);
  const ask = userMessage(
    "summary-request",
    `${
      transcript(messages, budget)
    }\n\n---\nSummarize the conversation above following your instructions.`,
    now,
  );
  const turn = await s.provider.complete(
    { system: SUMMARY_SYSTEM, messages: [ask], tools: [], signal },
    () => {},
  );
  const text = textOf(turn).trim();
  if (!text) throw new AgentError("the summarizing model returned no text");
  return { ...turn, text };
}

const RESULT_CAP = 2_000;
const TEXT_CAP = 16_000;

/**
 * The conversation as plain text in at most `maxChars` characters: the first entry
 * (the task, or the previous summary) and as many of the latest ones as fit.
 */
export function transcript(messages: Message[], maxChars = Infinity): string {
  const out: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "text" && p.text.trim()) {
        out.push(`[${m.role}] ${cut(p.text.trim(), TEXT_CAP)}`);
      }
      if (p.type === "tool_call") out.push(`[tool call ${p.name}] ${cut(p.input, RESULT_CAP)}`);
      if (p.type === "tool_result") {
        out.push(
          `[tool result ${p.name}${p.is_error ? ", error" : ""}] ${cut(p.content, RESULT_CAP)}`,
        );
      }
    }
  }
  const total = out.reduce((n, e) => n + e.length + 2, 0);
  if (total <= maxChars || out.length < 3) return out.join("\n\n");
  let room = maxChars - out[0].length - 100;
  let from = out.length;
  while (from > 1 && room - out[from - 1].length - 2 >= 0) room -= out[--from].length + 2;
  const left = from - 1;
  return [
    out[0],
    `[... ${left} earlier entries left out to fit the summarizer's context window ...]`,
    ...out.slice(from),
  ].join("\n\n");
}

function cut(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max)} [... ${text.length - max} characters cut]`
    : text;
}
