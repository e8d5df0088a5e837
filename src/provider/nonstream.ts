/**
 * Some servers answer a `stream: true` request with one JSON chat.completion
 * (proxies with streaming off, Gemini's compatibility layer in some modes). The
 * provider turns such a body into the equivalent SSE stream so one code path
 * (the stream assembler) handles both: message → delta, tool calls get their
 * `index`, usage rides along, and `[DONE]` closes it.
 */

export function completionToSse(text: string): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const message = `the provider sent a body that is neither SSE nor JSON: ${text.slice(0, 200)}`;
    return event({ error: { message } });
  }
  const d = data as Record<string, unknown> | null;
  // An `{"error":…}` body stays as it is: the stream reader raises it as an in-stream error.
  if (!d || typeof d !== "object" || !Array.isArray(d.choices)) return event(data);
  const chunk = {
    id: d.id,
    object: "chat.completion.chunk",
    model: d.model,
    choices: d.choices.map((c: Record<string, unknown>) => ({
      index: c?.index ?? 0,
      delta: toDelta(c?.message ?? c?.delta),
      finish_reason: c?.finish_reason ?? null,
    })),
    usage: d.usage ?? null,
  };
  return event(chunk) + "data: [DONE]\n\n";
}

function toDelta(message: unknown): Record<string, unknown> {
  if (!message || typeof message !== "object") return {};
  const m = message as Record<string, unknown>;
  const delta: Record<string, unknown> = { ...m };
  if (Array.isArray(m.tool_calls)) {
    delta.tool_calls = m.tool_calls.map((tc: Record<string, unknown>, i: number) => ({
      ...tc,
      index: typeof tc?.index === "number" ? tc.index : i,
    }));
  }
  return delta;
}

function event(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
