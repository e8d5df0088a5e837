/**
 * Anthropic-style prompt-caching breakpoints for OpenAI-compatible gateways that
 * pass them through (LiteLLM, OpenRouter): the last system message, the last
 * tool, and the last two messages with content. That is Anthropic's limit of
 * four, and it caches the stable prefix plus the growing conversation.
 */
import type { WireMessage } from "./wire_messages.ts";

const EPHEMERAL = { type: "ephemeral" } as const;

export function addCacheMarkers(body: { messages: WireMessage[]; tools?: unknown }): void {
  const msgs = body.messages;
  const lastSystem = msgs.findLastIndex((m) => m.role === "system");
  if (lastSystem >= 0) markContent(msgs[lastSystem]);

  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const last = body.tools[body.tools.length - 1] as Record<string, unknown>;
    body.tools[body.tools.length - 1] = { ...last, cache_control: EPHEMERAL };
  }

  let marked = 0;
  for (let i = msgs.length - 1; i > lastSystem && marked < 2; i--) {
    if (markContent(msgs[i])) marked++;
  }
}

/** Puts the marker on the last content part; false when there is no content to mark. */
function markContent(m: WireMessage): boolean {
  const c = m.content;
  if (typeof c === "string") {
    if (c === "") return false;
    m.content = [{ type: "text", text: c, cache_control: EPHEMERAL }];
    return true;
  }
  if (Array.isArray(c) && c.length > 0) {
    const last = c[c.length - 1] as Record<string, unknown>;
    c[c.length - 1] = { ...last, cache_control: EPHEMERAL };
    return true;
  }
  return false;
}
