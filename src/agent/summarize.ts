/**
 * Auto-summarize: when the context window is nearly full, the small model writes a
 * summary and the conversation continues from it. The session keeps the full
 * history; only what is sent shrinks.
 */
import type { Message, Provider, ProviderTurn } from "../provider/types.ts";
import { AgentError } from "../util/errors.ts";
import { textOf } from "./draft.ts";

export interface Summarizer {
  provider: Provider;
  /** Context window of the large model, in tokens. */
  contextWindow: number;
}

const SUMMARY_SYSTEM = `You summarize a coding agent's conversation so that the agent can \
continue the task from your summary alone. Write plain text with these sections:
Task: what the user asked for, with every constraint they gave.
Done so far: files read and changed (paths), commands run and their outcome.
Current state: what works, what is failing, open errors with their exact messages.
Next steps: what remains, in order.
Keep file paths, identifiers and error messages exact. Leave out pleasantries.`;

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
  const ask: Message = {
    id: "summary-request",
    role: "user",
    parts: [{
      type: "text",
      text: `${
        transcript(messages)
      }\n\n---\nSummarize the conversation above following your instructions.`,
    }],
    created_at: now,
    updated_at: now,
  };
  const turn = await s.provider.complete(
    { system: SUMMARY_SYSTEM, messages: [ask], tools: [], signal },
    () => {},
  );
  const text = textOf({ ...ask, parts: turn.parts }).trim();
  if (!text) throw new AgentError("the summarizing model returned no text");
  return { ...turn, text };
}

const RESULT_CAP = 2_000;

export function transcript(messages: Message[]): string {
  const out: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "text" && p.text.trim()) out.push(`[${m.role}] ${p.text.trim()}`);
      if (p.type === "tool_call") out.push(`[tool call ${p.name}] ${p.input}`);
      if (p.type === "tool_result") {
        const body = p.content.length > RESULT_CAP
          ? `${p.content.slice(0, RESULT_CAP)} [... ${
            p.content.length - RESULT_CAP
          } characters cut]`
          : p.content;
        out.push(`[tool result ${p.name}${p.is_error ? ", error" : ""}] ${body}`);
      }
    }
  }
  return out.join("\n\n");
}
