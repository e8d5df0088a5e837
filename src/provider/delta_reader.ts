/**
 * Reads one streamed `choices[0].delta` into ordered pieces of text and
 * reasoning. Providers put reasoning in `reasoning_content` (DeepSeek, xAI, Z.ai,
 * llama.cpp, Qwen), `reasoning` (Groq, Ollama, Cerebras, OpenRouter),
 * `reasoning_details` blocks (OpenRouter, Vercel gateway; kept verbatim because
 * they carry signatures the provider wants back), or inside a `content` array of
 * `thinking`/`text` parts (Mistral Magistral).
 */

import { TextBuilder } from "../util/text_builder.ts";

export interface Piece {
  kind: "text" | "reasoning";
  text: string;
}

export interface RawToolCallDelta {
  index?: unknown;
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

export interface DeltaContent {
  pieces: Piece[];
  /** `reasoning_details` entries of this delta, in order. */
  details: Record<string, unknown>[];
  toolCalls: RawToolCallDelta[];
}

export function readDelta(raw: unknown): DeltaContent {
  const out: DeltaContent = { pieces: [], details: [], toolCalls: [] };
  if (!raw || typeof raw !== "object") return out;
  const d = raw as Record<string, unknown>;

  if (Array.isArray(d.reasoning_details)) {
    for (const entry of d.reasoning_details) {
      if (entry && typeof entry === "object") out.details.push(entry as Record<string, unknown>);
    }
  }
  // The plain-text field wins: OpenRouter sends the same text in `reasoning` and
  // in `reasoning_details`, and counting it twice would double the reasoning.
  const plain = str(d.reasoning_content) || str(d.reasoning);
  const reasoning = plain || out.details.map(detailText).join("");
  if (reasoning) out.pieces.push({ kind: "reasoning", text: reasoning });

  readContent(d.content, out.pieces);
  const refusal = str(d.refusal);
  if (refusal) out.pieces.push({ kind: "text", text: refusal });

  if (Array.isArray(d.tool_calls)) {
    for (const tc of d.tool_calls) {
      if (tc && typeof tc === "object") out.toolCalls.push(tc as RawToolCallDelta);
    }
  } else if (d.function_call && typeof d.function_call === "object") {
    // Legacy single function call: treat it as tool call 0 without an id.
    out.toolCalls.push({ index: 0, function: d.function_call as RawToolCallDelta["function"] });
  }
  return out;
}

function readContent(content: unknown, pieces: Piece[]): void {
  if (typeof content === "string") {
    if (content) pieces.push({ kind: "text", text: content });
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const p = part as Record<string, unknown>;
    if (p.type === "text" && str(p.text)) pieces.push({ kind: "text", text: str(p.text) });
    else if (p.type === "thinking" || p.type === "reasoning") {
      const text = textOfThinking(p.thinking ?? p.text ?? p.reasoning);
      if (text) pieces.push({ kind: "reasoning", text });
    }
  }
}

/** Magistral: `thinking` is a string or an array of `{type:"text", text}`. */
function textOfThinking(v: unknown): string {
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) return "";
  return v.map((x) => typeof x === "string" ? x : str((x as { text?: unknown })?.text)).join("");
}

function detailText(d: Record<string, unknown>): string {
  return str(d.text) || str(d.summary);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

type DetailText = "text" | "summary";
const isDetailText = (k: string): k is DetailText => k === "text" || k === "summary";

/**
 * `reasoning_details` entries as they stream: pieces of one block share `type` and
 * `index`, so their text is joined and later fields (the signature arrives last) are
 * kept. Encrypted blocks are never merged. Text grows in a TextBuilder, so a piece
 * costs its own bytes, not a copy of the block so far.
 */
export class ReasoningDetails {
  #entries: Array<{ fields: Record<string, unknown>; texts: Map<DetailText, TextBuilder> }> = [];

  add(d: Record<string, unknown>): void {
    const last = this.#entries[this.#entries.length - 1];
    const sameBlock = last !== undefined && last.fields.type === d.type &&
      (last.fields.index ?? 0) === (d.index ?? 0) && d.type !== "reasoning.encrypted";
    if (!sameBlock) {
      const texts = new Map<DetailText, TextBuilder>();
      for (const [k, v] of Object.entries(d)) {
        if (isDetailText(k) && typeof v === "string") texts.set(k, new TextBuilder(v));
      }
      this.#entries.push({ fields: { ...d }, texts });
      return;
    }
    for (const [k, v] of Object.entries(d)) {
      if (isDetailText(k) && typeof v === "string") {
        let text = last.texts.get(k);
        if (!text) {
          const before = last.fields[k];
          text = new TextBuilder(typeof before === "string" ? before : "");
          last.texts.set(k, text);
          last.fields[k] = "";
        }
        text.append(v);
      } else if (v !== null && v !== undefined) {
        last.fields[k] = v;
        if (isDetailText(k)) last.texts.delete(k);
      }
    }
  }

  /** The entries as plain objects, their text joined. */
  toArray(): Record<string, unknown>[] {
    return this.#entries.map(({ fields, texts }) => {
      const out = { ...fields };
      for (const [k, text] of texts) out[k] = text.toString();
      return out;
    });
  }
}
