/**
 * The run's redactor applied where its output leaves: session records, events and
 * the outcome the CLI prints. Which values are secret is src/secrets' business; the
 * redactor may learn more while the run goes on (OAuth tokens), so none of these
 * wrappers is skipped for a redactor that starts out empty.
 */
import type { Redactor } from "../secrets/redactor.ts";
import type { SessionWriter } from "../session/types.ts";
import type { AgentEvent } from "../agent/events.ts";
import type { RunOutcome } from "../agent/types.ts";

/** A session writer that redacts every record before it is written. */
export function secretSafeWriter<W extends SessionWriter>(
  inner: W,
  redactor: Redactor,
): SessionWriter {
  return {
    id: inner.id,
    saveMessage: (m, opts) => inner.saveMessage(redactor.redactValue(m), opts),
    // Redacted when the snapshot is taken: a streamed delta must not copy the message.
    liveMessage: (id, read) => inner.liveMessage(id, () => redactor.redactValue(read())),
    saveMeta: (meta) => inner.saveMeta(redactor.redactValue(meta)),
    recordChange: (change, id) => inner.recordChange(redactor.redactValue(change), id),
    flush: () => inner.flush(),
  };
}

type Streamed = Extract<AgentEvent, { type: "text" | "reasoning" }>;

/**
 * An emitter that redacts every event. Text and reasoning arrive in pieces, and a
 * secret split over two pieces would match in neither: the end of a piece that could
 * begin a secret is held back until the next piece settles it, and is sent before
 * any other event. A retry drops what was held of the abandoned attempt.
 */
export function redactingEmit(
  emit: (e: AgentEvent) => void,
  redactor: Redactor,
): RedactingEmit {
  let held: Streamed | undefined;
  const release = () => {
    if (held && held.delta !== "") emit(held);
    held = undefined;
  };
  const safe = (e: AgentEvent) => {
    if (e.type === "text" || e.type === "reasoning") {
      if (held && (held.type !== e.type || held.message_id !== e.message_id)) release();
      const text = redactor.redact((held?.delta ?? "") + e.delta);
      const keep = redactor.heldTail(text);
      held = { ...e, delta: text.slice(text.length - keep) };
      if (keep < text.length) emit({ ...e, delta: text.slice(0, text.length - keep) });
      return;
    }
    if (e.type === "retry" && held?.message_id === e.message_id) held = undefined;
    else release();
    emit(redactor.redactValue(e));
  };
  return Object.assign(safe, { flush: release });
}

export type RedactingEmit = ((e: AgentEvent) => void) & {
  /** Sends what is held back (at the end of a run, when no `turn` event closes a message). */
  flush(): void;
};

/**
 * The outcome as the CLI prints it (`result` event, error line): the last text and
 * the error message redacted. Sends whatever `emit` still holds first.
 */
export function redactOutcome(
  redactor: Redactor,
  emit: RedactingEmit,
  outcome: RunOutcome,
): RunOutcome {
  emit.flush();
  if (redactor.size === 0) return outcome;
  if (outcome.error) outcome.error.message = redactor.redact(outcome.error.message);
  return {
    ...outcome,
    text: redactor.redact(outcome.text),
    denials: redactor.redactValue(outcome.denials),
  };
}
