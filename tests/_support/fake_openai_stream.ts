/**
 * Turns a scripted turn into what api.openai.com would send: the SSE chunks (role, reasoning,
 * content, tool-call deltas, finish, usage) or a chat.completion object.
 * fake_openai_write.ts sends them, with the scripted delays and faults.
 */
import type { ScriptedTurn } from "./fake_openai_types.ts";

export interface TurnContext {
  /** Index of the scripted turn, used in ids. */
  turn: number;
  model: string;
  includeUsage: boolean;
  /** Characters of the request's messages, for the default prompt token estimate. */
  promptChars: number;
}

interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

const DEFAULT_CHUNK = 16;

function wireCalls(turn: ScriptedTurn, ctx: TurnContext): WireToolCall[] {
  return (turn.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${ctx.turn}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
  }));
}

function usageOf(turn: ScriptedTurn, ctx: TurnContext, calls: WireToolCall[]) {
  if (turn.usage === null) return null;
  const tokens = (s: string) => Math.ceil([...s].length / 4);
  const reasoning = turn.usage?.reasoning_tokens ?? tokens(turn.reasoning ?? "");
  const out = tokens(turn.text ?? "") + reasoning +
    calls.reduce((n, c) => n + tokens(c.name + c.arguments) + 3, 0);
  const prompt = turn.usage?.prompt_tokens ?? Math.max(1, Math.ceil(ctx.promptChars / 4));
  const completion = turn.usage?.completion_tokens ?? Math.max(1, out);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: turn.usage?.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(turn: ScriptedTurn): string {
  return turn.finish_reason ?? (turn.tool_calls?.length ? "tool_calls" : "stop");
}

/** Splits by code points, so a delta never ends in half a surrogate pair. */
function pieces(s: string, size: number): string[] {
  const chars = [...s];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

const created = () => Math.floor(Date.now() / 1000);

/** The `data: …\n\n` events of a streamed turn, [DONE] excluded. */
export function streamEvents(turn: ScriptedTurn, ctx: TurnContext): string[] {
  const size = Math.max(1, turn.chunkSize ?? DEFAULT_CHUNK);
  const calls = wireCalls(turn, ctx);
  const base = {
    id: `chatcmpl-fake-${ctx.turn}`,
    object: "chat.completion.chunk",
    created: created(),
    model: ctx.model,
    system_fingerprint: "fp_fake",
  };
  // api.openai.com puts `usage: null` on every chunk when usage was asked for.
  const tail = ctx.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...tail,
      })
    }\n\n`;
  const events = [chunk({ role: "assistant", content: turn.text ? "" : null, refusal: null })];
  for (const p of pieces(turn.reasoning ?? "", size)) events.push(chunk({ reasoning_content: p }));
  for (const p of pieces(turn.text ?? "", size)) events.push(chunk({ content: p }));
  calls.forEach((c, index) => {
    events.push(chunk({
      tool_calls: [{
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: "" },
      }],
    }));
    for (const p of pieces(c.arguments, size)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    }
  });
  events.push(chunk({}, finishReason(turn)));
  const usage = usageOf(turn, ctx, calls);
  if (ctx.includeUsage && usage) {
    events.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  }
  return events;
}

/** The chat.completion object of a non-streaming request. */
export function completionBody(turn: ScriptedTurn, ctx: TurnContext): Record<string, unknown> {
  const calls = wireCalls(turn, ctx);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: turn.text ?? null,
    refusal: null,
  };
  if (turn.reasoning) message.reasoning_content = turn.reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const usage = usageOf(turn, ctx, calls);
  return {
    id: `chatcmpl-fake-${ctx.turn}`,
    object: "chat.completion",
    created: created(),
    model: ctx.model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    ...(usage ? { usage } : {}),
  };
}
