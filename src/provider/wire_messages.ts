/**
 * mopac's messages (role + parts) as chat-completions messages: tool calls as
 * assistant `tool_calls`, tool results as `role:"tool"` messages, images as
 * `image_url` parts (dropped with a note when the model takes none), and
 * reasoning sent back only where the provider expects it.
 */
import type { ImagePart, Message, Part, ToolResultPart } from "../domain/message.ts";

export type WireMessage = Record<string, unknown> & { role: string };

/**
 * How reasoning goes back to the provider: `details` = OpenRouter-style
 * `reasoning_details` blocks (signatures), `content` = `reasoning_content` text
 * (DeepSeek, Moonshot, Z.ai thinking with tools), `none` = not at all (OpenAI and
 * strict servers reject unknown message fields).
 */
export type ReasoningEcho = "none" | "content" | "details";

export interface WireOptions {
  supportsImages: boolean;
  echo: ReasoningEcho;
}

const IMAGE_OMITTED = "[image omitted: this model does not accept images]";

export function toWireMessages(messages: Message[], opts: WireOptions): WireMessage[] {
  const out: WireMessage[] = [];
  // Reasoning matters to the provider only inside the current tool loop, i.e.
  // after the last real user message; older reasoning is dead weight.
  const lastUser = messages.findLastIndex((m) =>
    m.role === "user" && m.parts.some((p) => p.type === "text" || p.type === "image")
  );
  let pendingImages: ImagePart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({ role: "user", content: userContent([], pendingImages, opts.supportsImages) });
    pendingImages = [];
  };

  messages.forEach((m, i) => {
    const results = m.parts.filter((p): p is ToolResultPart => p.type === "tool_result");
    if (results.length > 0) {
      for (const r of results) {
        out.push({
          role: "tool",
          tool_call_id: r.tool_call_id,
          content: r.content || "(no output)",
        });
        if (r.images?.length) pendingImages.push(...r.images);
      }
    }
    if (m.role === "tool") return;
    flushImages();
    if (m.role === "assistant") {
      const wire = assistantMessage(m.parts, i > lastUser ? opts.echo : "none");
      if (wire) out.push(wire);
      return;
    }
    const texts = m.parts.filter((p) => p.type === "text").map((p) => p.text);
    const images = m.parts.filter((p): p is ImagePart => p.type === "image");
    if (texts.length === 0 && images.length === 0) return;
    if (m.role === "system") out.push({ role: "system", content: texts.join("\n") });
    else out.push({ role: "user", content: userContent(texts, images, opts.supportsImages) });
  });
  flushImages();
  return out;
}

function userContent(texts: string[], images: ImagePart[], supportsImages: boolean): unknown {
  if (images.length === 0) return texts.join("\n");
  if (!supportsImages) return [...texts, ...images.map(() => IMAGE_OMITTED)].join("\n");
  return [
    ...texts.map((text) => ({ type: "text", text })),
    ...images.map((img) => ({
      type: "image_url",
      image_url: { url: `data:${img.mime_type};base64,${img.data}` },
    })),
  ];
}

function assistantMessage(parts: Part[], echo: ReasoningEcho): WireMessage | undefined {
  let text = "";
  const calls: Record<string, unknown>[] = [];
  let reasoning = "";
  const details: unknown[] = [];
  for (const p of parts) {
    if (p.type === "text") text += p.text;
    else if (p.type === "tool_call") {
      calls.push({
        id: p.id,
        type: "function",
        function: { name: p.name, arguments: p.input.trim() === "" ? "{}" : p.input },
      });
    } else if (p.type === "reasoning") {
      reasoning += p.text;
      if (p.details) details.push(...p.details);
    }
  }
  // An empty assistant message (cancelled before any output) is invalid for
  // most APIs; dropping it loses nothing.
  if (text === "" && calls.length === 0) return undefined;
  const wire: WireMessage = { role: "assistant", content: text === "" ? null : text };
  if (calls.length > 0) wire.tool_calls = calls;
  if (echo === "content" && reasoning !== "") wire.reasoning_content = reasoning;
  if (echo === "details" && details.length > 0) wire.reasoning_details = details;
  return wire;
}
