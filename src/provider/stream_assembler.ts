/**
 * Builds one assistant turn from chat-completion chunks, emitting StreamEvents
 * as pieces arrive. It accepts what real providers send rather than what the
 * spec says: tool calls without `index`, indexes starting at 1, the same index
 * reused for a second call with a new id, continuation deltas with `"id":""`,
 * repeated header deltas, whole calls in one chunk, usage repeated or
 * cumulative or under `x_groq`, `finish_reason` repeated, reset to null or
 * never sent. One assembler serves one attempt: a retry starts a new one.
 */
import type { StreamEvent } from "./types.ts";
import type { Usage } from "../domain/usage.ts";
import type { FinishReason, ReasoningPart, TextPart, ToolCallPart } from "../domain/message.ts";
import { type RawToolCallDelta, readDelta, ReasoningDetails } from "./delta_reader.ts";
import { parseUsage } from "./usage.ts";
import { TextBuilder } from "../util/text_builder.ts";

type OutPart = TextPart | ReasoningPart | ToolCallPart;

/**
 * A part while it streams. Its text grows in a TextBuilder, so a delta costs its own
 * bytes and never a copy of what came before; result() turns them into plain parts.
 */
type Building =
  | { type: "text"; text: TextBuilder }
  | { type: "reasoning"; text: TextBuilder; details?: ReasoningDetails }
  | { type: "tool_call"; id: string; name: string; input: TextBuilder };

type BuildingCall = Extract<Building, { type: "tool_call" }>;

interface CallSlot {
  providerIndex?: number;
  id: string;
  name: string;
  /** Arguments that arrived before the name, held until the call can start. */
  pending: string;
  part?: BuildingCall;
  /** Our index for events: started calls in arrival order, from 0. */
  ordinal: number;
}

export interface AssembledTurn {
  parts: OutPart[];
  /** Undefined when the stream carried no usable finish_reason. */
  finishReason?: FinishReason;
  usage?: Usage;
}

function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

export class StreamAssembler {
  readonly #parts: Building[] = [];
  private readonly calls: CallSlot[] = [];
  private finishRaw?: string;
  private usage?: Usage;
  private groqUsage?: Usage;
  private started = 0;

  constructor(
    private readonly emit: (e: StreamEvent) => void,
    private readonly makeId: () => string = newToolCallId,
  ) {}

  push(chunk: unknown): void {
    if (!chunk || typeof chunk !== "object") return;
    const c = chunk as Record<string, unknown>;
    this.takeUsage(c);
    if (!Array.isArray(c.choices)) return;
    for (const choice of c.choices) {
      if (!choice || typeof choice !== "object") continue;
      const ch = choice as Record<string, unknown>;
      // Only the first choice is ours (n=1); some servers omit `index`.
      if (typeof ch.index === "number" && ch.index !== 0) continue;
      this.takeDelta(ch.delta);
      if (typeof ch.finish_reason === "string" && ch.finish_reason !== "") {
        this.finishRaw = ch.finish_reason;
      }
    }
  }

  /** True once the stream carried a finish_reason. */
  get finished(): boolean {
    return this.finishRaw !== undefined;
  }

  /** Whether anything (text, reasoning or a started call) arrived. */
  get isEmpty(): boolean {
    return this.#parts.length === 0;
  }

  /**
   * What arrived so far, as plain parts (each call joins the text once); `finishReason`
   * is normalised, tool calls get their final inputs.
   */
  result(): AssembledTurn {
    const parts = this.#parts.map(plainPart);
    const hasCalls = this.hasToolCalls;
    let finishReason = this.finishRaw === undefined ? undefined : normalizeFinish(this.finishRaw);
    if (finishReason === "stop" && hasCalls) finishReason = "tool_calls";
    return { parts, finishReason, usage: this.usage ?? this.groqUsage };
  }

  get hasToolCalls(): boolean {
    return this.#parts.some((p) => p.type === "tool_call");
  }

  private takeUsage(c: Record<string, unknown>): void {
    const u = parseUsage(c.usage);
    // Cumulative usage grows chunk by chunk and repeated usage is identical, so
    // the latest non-empty one is right; an all-zero trailer must not erase it.
    if (u && (u.input_tokens > 0 || u.output_tokens > 0 || !this.usage)) this.usage = u;
    const groq = parseUsage((c.x_groq as { usage?: unknown } | undefined)?.usage);
    if (groq) this.groqUsage = groq;
  }

  private takeDelta(raw: unknown): void {
    const delta = readDelta(raw);
    for (const piece of delta.pieces) this.appendText(piece.kind, piece.text);
    if (delta.details.length > 0) {
      const part = this.currentReasoning();
      part.details ??= new ReasoningDetails();
      for (const d of delta.details) part.details.add(d);
    }
    for (const tc of delta.toolCalls) this.takeToolCall(tc);
  }

  private appendText(kind: "text" | "reasoning", text: string): void {
    const last = this.#parts[this.#parts.length - 1];
    if (last && last.type === kind) last.text.append(text);
    else this.#parts.push({ type: kind, text: new TextBuilder(text) });
    this.emit({ type: kind, delta: text });
  }

  private currentReasoning(): Extract<Building, { type: "reasoning" }> {
    const last = this.#parts[this.#parts.length - 1];
    if (last && last.type === "reasoning") return last;
    const part = { type: "reasoning" as const, text: new TextBuilder() };
    this.#parts.push(part);
    return part;
  }

  private takeToolCall(tc: RawToolCallDelta): void {
    const index = typeof tc.index === "number" ? tc.index : undefined;
    const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
    const fn = tc.function ?? {};
    const name = typeof fn.name === "string" ? fn.name : "";
    const args = typeof fn.arguments === "string"
      ? fn.arguments
      : fn.arguments && typeof fn.arguments === "object"
      ? JSON.stringify(fn.arguments)
      : "";

    let slot = this.findSlot(index, id);
    if (!slot) {
      slot = { providerIndex: index, id: "", name: "", pending: "", ordinal: -1 };
      this.calls.push(slot);
    }
    // An empty or repeated id never overwrites the first real one, and a header
    // delta sent twice must not make "weatherweather".
    if (id && !slot.id) slot.id = id;
    if (name && !slot.name) slot.name = name;
    if (!slot.part && slot.name) this.startCall(slot);
    if (!args) return;
    if (!slot.part) {
      slot.pending += args;
      return;
    }
    // A provider that resends the whole call repeats complete arguments verbatim.
    // (Lengths first: joining the arguments for every delta would cost what came before.)
    const input = slot.part.input;
    if (args.length === input.length && args === input.toString() && isCompleteJson(args)) return;
    input.append(args);
    this.emit({ type: "tool_call_delta", index: slot.ordinal, delta: args });
  }

  private findSlot(index: number | undefined, id: string | undefined): CallSlot | undefined {
    if (index !== undefined) {
      const found = this.calls.findLast((s) => s.providerIndex === index);
      // Some servers number every call 0; a new id at a used index is a new call.
      if (found && id && found.id && found.id !== id) return undefined;
      return found;
    }
    if (id) return this.calls.find((s) => s.id === id);
    return this.calls[this.calls.length - 1];
  }

  private startCall(slot: CallSlot): void {
    if (!slot.id) slot.id = this.makeId();
    slot.ordinal = this.started++;
    // Two calls of one response with the same id could not be told apart by their results
    // (and some APIs refuse them): the later one gets its own. The slot keeps the
    // provider's id, which its further deltas carry.
    const taken = this.#parts.some((p) => p.type === "tool_call" && p.id === slot.id);
    const id = taken ? this.makeId() : slot.id;
    slot.part = { type: "tool_call", id, name: slot.name, input: new TextBuilder() };
    this.#parts.push(slot.part);
    this.emit({ type: "tool_call_start", index: slot.ordinal, id, name: slot.name });
    if (slot.pending) {
      slot.part.input.append(slot.pending);
      this.emit({ type: "tool_call_delta", index: slot.ordinal, delta: slot.pending });
      slot.pending = "";
    }
  }
}

function plainPart(p: Building): OutPart {
  switch (p.type) {
    case "text":
      return { type: "text", text: p.text.toString() };
    case "reasoning":
      return p.details
        ? { type: "reasoning", text: p.text.toString(), details: p.details.toArray() }
        : { type: "reasoning", text: p.text.toString() };
    case "tool_call": {
      const input = p.input.toString();
      return {
        type: "tool_call",
        id: p.id,
        name: p.name,
        input: input.trim() === "" ? "{}" : input,
      };
    }
  }
}

export function normalizeFinish(raw: string): FinishReason {
  switch (raw.toLowerCase()) {
    case "length":
    case "max_tokens":
    case "model_length":
      return "length";
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "tool_calls";
    case "content_filter":
    case "safety":
    case "recitation":
      return "content_filter";
    case "error":
      return "error";
    default:
      return "stop";
  }
}

function isCompleteJson(s: string): boolean {
  try {
    JSON.parse(s);
    return s.trim() !== "";
  } catch {
    return false;
  }
}
