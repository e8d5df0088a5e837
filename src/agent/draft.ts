/**
 * The assistant message while it streams. Deltas are folded into parts so a crash
 * mid-stream leaves a usable snapshot; a `retry` event empties it again so nothing
 * from the failed attempt is concatenated with the next one.
 */
import type { ProviderTurn, StreamEvent } from "../provider/types.ts";
import type { Message, ReasoningPart, TextPart, ToolCallPart } from "../domain/message.ts";

export class AssistantDraft {
  readonly message: Message;
  #calls = new Map<number, ToolCallPart>();

  constructor(id: string, model: string, now: number) {
    this.message = { id, role: "assistant", parts: [], created_at: now, updated_at: now, model };
  }

  /** Folds one stream event in; returns false for events that change nothing. */
  apply(event: StreamEvent, now: number): boolean {
    const parts = this.message.parts;
    this.message.updated_at = now;
    switch (event.type) {
      case "text":
      case "reasoning": {
        const last = parts.at(-1);
        const kind = event.type;
        if (last && last.type === kind) (last as TextPart | ReasoningPart).text += event.delta;
        else parts.push({ type: kind, text: event.delta });
        return true;
      }
      case "tool_call_start": {
        const call: ToolCallPart = { type: "tool_call", id: event.id, name: event.name, input: "" };
        this.#calls.set(event.index, call);
        parts.push(call);
        return true;
      }
      case "tool_call_delta": {
        const call = this.#calls.get(event.index);
        if (call) call.input += event.delta;
        return call !== undefined;
      }
      case "retry":
        this.reset();
        return true;
    }
  }

  reset(): void {
    this.message.parts = [];
    this.#calls.clear();
  }

  /** Replaces the streamed parts with the provider's final, assembled ones. */
  complete(turn: ProviderTurn, now: number): void {
    this.message.parts = [
      ...turn.parts,
      { type: "finish", reason: turn.finish_reason, at: now },
    ];
    this.message.usage = turn.usage;
    this.message.cost_usd = turn.cost_usd;
    this.message.finished_at = now;
    this.message.updated_at = now;
  }

  /** Ends a message that did not complete (error or cancel), keeping what arrived. */
  abandon(reason: "error" | "cancelled", now: number, why?: string): void {
    // Half-streamed tool calls cannot be answered; keep the text only.
    this.message.parts = this.message.parts.filter((p) => p.type !== "tool_call");
    this.message.parts.push({ type: "finish", reason, at: now, message: why });
    this.message.finished_at = now;
    this.message.updated_at = now;
  }
}
