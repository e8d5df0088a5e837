/**
 * Messages that are still streaming. The loop registers how to read one as it is now
 * and says when it changed; the handle reads it only when a snapshot is written (on
 * the debounce), so a streamed delta costs a flag here, not a copy, a validation or a
 * serialisation of the whole message. The message's next save ends the following.
 */
import type { Message } from "../domain/message.ts";

export class LiveMessages {
  #reads = new Map<string, () => Message>();
  #due = new Set<string>();

  follow(id: string, read: () => Message): void {
    this.#reads.set(id, read);
  }

  /** Marks the message changed; false when `read` is no longer the one followed. */
  changed(id: string, read: () => Message): boolean {
    if (this.#reads.get(id) !== read) return false;
    this.#due.add(id);
    return true;
  }

  /** A save of the message itself supersedes its snapshots. */
  end(id: string): void {
    this.#reads.delete(id);
    this.#due.delete(id);
  }

  /** Each changed message as it is now; they are not due again until they change. */
  take(): Message[] {
    const out: Message[] = [];
    for (const id of this.#due) out.push(this.#reads.get(id)!());
    this.#due.clear();
    return out;
  }

  clear(): void {
    this.#reads.clear();
    this.#due.clear();
  }
}
