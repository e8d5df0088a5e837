/** Fakes for the edges of the agent loop: a scripted provider, a recording store, ids (the clock: fake_clock.ts). */
import type { ChatRequest, Provider, ProviderTurn, StreamEvent } from "../../src/provider/types.ts";
import type { Message, ToolCallPart } from "../../src/domain/message.ts";
import type { SessionMeta, SessionWriter } from "../../src/session/types.ts";
import type { ToolRunner, ToolRunResult } from "../../src/agent/tool_runner.ts";

export type ScriptStep =
  | { events: StreamEvent[]; turn: ProviderTurn }
  | { error: Error };

export function scriptedProvider(steps: ScriptStep[]): Provider & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    label: "fake/model",
    requests,
    complete(req, onEvent) {
      requests.push(structuredClone({ ...req, signal: undefined }));
      const step = steps.shift();
      if (!step) return Promise.reject(new Error("script exhausted"));
      if ("error" in step) return Promise.reject(step.error);
      for (const e of step.events) onEvent(e);
      return Promise.resolve(step.turn);
    },
  };
}

const usage = (i: number, o: number) => ({
  input_tokens: i,
  output_tokens: o,
  cached_input_tokens: 0,
});

export function textStep(text: string, tokens = [10, 5], cost = 0.001): ScriptStep {
  return {
    events: [{ type: "text", delta: text }],
    turn: {
      parts: [{ type: "text", text }],
      finish_reason: "stop",
      usage: usage(tokens[0], tokens[1]),
      cost_usd: cost,
    },
  };
}

export function callStep(calls: Array<{ id: string; name: string; input: unknown }>): ScriptStep {
  const parts: ToolCallPart[] = calls.map((c) => ({
    type: "tool_call",
    id: c.id,
    name: c.name,
    input: JSON.stringify(c.input),
  }));
  return {
    events: parts.flatMap((p, index) => [
      { type: "tool_call_start" as const, index, id: p.id, name: p.name },
      { type: "tool_call_delta" as const, index, delta: p.input },
    ]),
    turn: { parts, finish_reason: "tool_calls", usage: usage(20, 10), cost_usd: 0.002 },
  };
}

export function echoRunner(
  handler?: (call: ToolCallPart) => Partial<ToolRunResult["result"]> & { deny?: boolean },
): ToolRunner & { calls: ToolCallPart[]; warmed: Array<{ name: string; callsBefore: number }> } {
  const calls: ToolCallPart[] = [];
  const warmed: Array<{ name: string; callsBefore: number }> = [];
  return {
    calls,
    warmed,
    specs: () => [{ name: "echo", description: "echo", parameters: { type: "object" } }],
    warm: (name) => void warmed.push({ name, callsBefore: calls.length }),
    run(call) {
      calls.push(call);
      const h = handler?.(call) ?? {};
      const result = {
        type: "tool_result" as const,
        tool_call_id: call.id,
        name: call.name,
        content: h.content ?? `ran ${call.input}`,
        is_error: h.deny ? true : h.is_error ?? false,
        ...(h.deny ? { denied: true } : {}),
      };
      const denial = h.deny
        ? {
          tool: call.name,
          tool_call_id: call.id,
          input_summary: call.input,
          rule: "test",
          reason: "no",
        }
        : undefined;
      return Promise.resolve({ result, denial });
    },
  };
}

export function memoryWriter(): SessionWriter & {
  messages: Map<string, Message>;
  metas: Array<Omit<SessionMeta, "type" | "at">>;
  flushes: number;
} {
  const messages = new Map<string, Message>();
  const metas: Array<Omit<SessionMeta, "type" | "at">> = [];
  const w = {
    id: "session-1",
    messages,
    metas,
    flushes: 0,
    saveMessage(m: Message) {
      messages.set(m.id, structuredClone(m));
      return Promise.resolve();
    },
    // No debounce here: every change is a snapshot, so tests see each state.
    liveMessage(id: string, read: () => Message) {
      return { changed: () => void messages.set(id, structuredClone(read())) };
    },
    saveMeta(meta: Omit<SessionMeta, "type" | "at">) {
      metas.push(meta);
      return Promise.resolve();
    },
    recordChange() {
      return Promise.resolve();
    },
    flush() {
      w.flushes++;
      return Promise.resolve();
    },
  };
  return w;
}

export function idSequence(): () => string {
  let n = 0;
  return () => `m${++n}`;
}
