/**
 * The assistant message while it streams. Deltas are folded into parts whose text
 * grows in TextBuilders, so a delta costs its own bytes and the same time however
 * long the message already is; `snapshot()` joins them into a Message when one is
 * wanted (the store's debounced crash-recovery snapshot). A `retry` event empties
 * the draft so nothing from the failed attempt is concatenated with the next one.
 */
import type { ProviderTurn, StreamEvent } from "../provider/types.ts";
import type { Message, Part } from "../domain/message.ts";
import { TextBuilder } from "../util/text_builder.ts";

type Streaming =
  | { type: "text" | "reasoning"; text: TextBuilder }
  | { type: "tool_call"; id: string; name: string; input: TextBuilder };

export class AssistantDraft {
  readonly id: string;
  #model: string;
  readonly #createdAt: number;
  #updatedAt: number;
  #parts: Streaming[] = [];
  #calls = new Map<number, Extract<Streaming, { type: "tool_call" }>>();

  constructor(id: string, model: string, now: number) {
    this.id = id;
    this.#model = model;
    this.#createdAt = now;
    this.#updatedAt = now;
  }

  /** Folds one stream event in; returns false for events that change nothing. */
  apply(event: StreamEvent, now: number): boolean {
    this.#updatedAt = now;
    switch (event.type) {
      case "text":
      case "reasoning": {
        const last = this.#parts[this.#parts.length - 1];
        if (last && last.type === event.type) last.text.append(event.delta);
        else this.#parts.push({ type: event.type, text: new TextBuilder(event.delta) });
        return true;
      }
      case "tool_call_start": {
        const call = {
          type: "tool_call" as const,
          id: event.id,
          name: event.name,
          input: new TextBuilder(),
        };
        this.#calls.set(event.index, call);
        this.#parts.push(call);
        return true;
      }
      case "tool_call_delta": {
        const call = this.#calls.get(event.index);
        call?.input.append(event.delta);
        return call !== undefined;
      }
      case "retry":
        this.#parts = [];
        this.#calls.clear();
        // The next attempt may run on a fallback model: the message is that model's.
        if (event.model) this.#model = event.model;
        return true;
    }
  }

  /** The message as it is now, unfinished: what a crash-recovery snapshot holds. */
  snapshot(): Message {
    return this.#message(this.#parts.map(plainPart));
  }

  /** The finished message: the provider's final, assembled parts. */
  complete(turn: ProviderTurn, now: number): Message {
    this.#updatedAt = now;
    return {
      ...this.#message([...turn.parts, { type: "finish", reason: turn.finish_reason, at: now }]),
      finished_at: now,
      usage: turn.usage,
      cost_usd: turn.cost_usd,
    };
  }

  /** Ends a message that did not complete (error or cancel), keeping what arrived. */
  abandon(reason: "error" | "cancelled", now: number, why?: string): Message {
    this.#updatedAt = now;
    // Half-streamed tool calls cannot be answered; keep the text only.
    const parts: Part[] = this.#parts.filter((p) => p.type !== "tool_call").map(plainPart);
    parts.push({ type: "finish", reason, at: now, message: why });
    return { ...this.#message(parts), finished_at: now };
  }

  #message(parts: Part[]): Message {
    return {
      id: this.id,
      role: "assistant",
      parts,
      created_at: this.#createdAt,
      updated_at: this.#updatedAt,
      model: this.#model,
    };
  }
}

function plainPart(p: Streaming): Part {
  return p.type === "tool_call"
    ? { type: "tool_call", id: p.id, name: p.name, input: p.input.toString() }
    : { type: p.type, text: p.text.toString() };
}
