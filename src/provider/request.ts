/**
 * The chat-completions request body for one call, shaped by the catalog and the
 * config: the right max-tokens key, reasoning effort, sampling options only when
 * set, usage in the stream, parallel tool calls where supported, prompt-caching
 * markers where honoured, and `extra_body` last so config can override anything
 * except the model and streaming.
 */
import type { ResolvedModel } from "../catalog/types.ts";
import type { ChatRequest } from "./types.ts";
import type { ToolSpec } from "../domain/message.ts";
import { type ReasoningEcho, toWireMessages, type WireMessage } from "./wire_messages.ts";
import { addCacheMarkers } from "./cache_markers.ts";

export type ChatBody = Record<string, unknown> & {
  model: string;
  messages: WireMessage[];
  stream: true;
};

export function buildChatBody(model: ResolvedModel, req: ChatRequest): ChatBody {
  const messages: WireMessage[] = [];
  if (model.system_prompt_prefix) {
    messages.push({ role: "system", content: model.system_prompt_prefix });
  }
  if (req.system) messages.push({ role: "system", content: req.system });
  messages.push(...toWireMessages(req.messages, {
    supportsImages: model.supports_attachments,
    echo: reasoningEcho(model),
  }));

  const body: ChatBody = { model: model.model_id, messages, stream: true };
  body.stream_options = { include_usage: true };
  const tools = toWireTools(req.tools);
  if (tools.length > 0) {
    body.tools = tools;
    if (model.supports_parallel_tool_calls) body.parallel_tool_calls = true;
  }
  if (model.default_max_tokens > 0) {
    body[model.use_max_completion_tokens ? "max_completion_tokens" : "max_tokens"] =
      model.default_max_tokens;
  }
  if (model.reasoning_effort) body.reasoning_effort = model.reasoning_effort;
  if (model.temperature !== undefined) body.temperature = model.temperature;
  if (model.top_p !== undefined) body.top_p = model.top_p;
  if (model.cache_control) addCacheMarkers(body);
  if (model.extra_body) Object.assign(body, model.extra_body);
  body.model = model.model_id;
  body.stream = true;
  return body;
}

/** Sorted by name so the prompt prefix (and the provider's cache of it) is stable. */
function toWireTools(tools: ToolSpec[]): Record<string, unknown>[] {
  return [...tools]
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    .map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
}

const DETAILS_HOSTS = /(^|\.)(openrouter\.ai|ai-gateway\.vercel\.sh|avian\.io)$/;
const CONTENT_HOSTS = /(^|\.)(deepseek\.com|moonshot\.ai|moonshot\.cn|z\.ai|bigmodel\.cn)$/;
const DETAILS_PROVIDERS = new Set(["openrouter", "vercel", "avian"]);
const CONTENT_PROVIDERS = new Set(["deepseek", "moonshot", "zai"]);

/** Which providers want reasoning back, decided from the provider id and host. */
function reasoningEcho(model: ResolvedModel): ReasoningEcho {
  let host = "";
  try {
    host = new URL(model.base_url).hostname;
  } catch {
    // A bad base URL fails later, at the request, with a clear error.
  }
  if (DETAILS_PROVIDERS.has(model.provider_id) || DETAILS_HOSTS.test(host)) return "details";
  if (CONTENT_PROVIDERS.has(model.provider_id) || CONTENT_HOSTS.test(host)) return "content";
  return "none";
}
