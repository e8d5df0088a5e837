/**
 * Server-sent events decoded synchronously, one network read at a time. The SDK's
 * own reader hands every event through three async generators, which costs more
 * than everything else a delta does (a provider streams one event per token); here
 * a read's events are split and handed over in one synchronous pass.
 *
 * It follows the SSE format: lines end in LF, CRLF or CR (also split across reads);
 * `data:` lines of one event are joined with "\n"; `event:` names it; a line starting
 * with ":" is a comment (OpenRouter's keep-alives); one space after the colon is
 * dropped; an event without data is not dispatched. At the end of the body an
 * unterminated last event still counts, as the SDK's reader does.
 */

export interface SseEvent {
  /** The `event:` field, or undefined. */
  event: string | undefined;
  data: string;
}

const LF = 10;

export class SseReader {
  readonly #decoder = new TextDecoder();
  #onEvent: (e: SseEvent) => void;
  /** The unfinished line so far, in the pieces it arrived in. */
  #rest: string[] = [];
  /** The last read ended in CR: an LF opening the next one ends no further line. */
  #afterCr = false;
  #data: string[] = [];
  #event: string | undefined;

  constructor(onEvent: (e: SseEvent) => void) {
    this.#onEvent = onEvent;
  }

  /** Decodes one read (UTF-8 may be split across reads) and hands over its complete events. */
  push(bytes: Uint8Array): void {
    this.#feed(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The body ended: the last line and event count even without their terminators. */
  end(): void {
    this.#feed(this.#decoder.decode());
    if (this.#rest.length > 0) this.#line(this.#rest.join(""));
    this.#rest = [];
    this.#dispatch();
  }

  #feed(text: string): void {
    let start = 0;
    if (this.#afterCr && text.charCodeAt(0) === LF) start = 1;
    this.#afterCr = false;
    const n = text.length;
    // Each position is searched once per line at most: `indexOf` never rescans a read,
    // and an unfinished line is never scanned again (a long one arrives in many reads).
    let lf = -1;
    let cr = -1;
    while (start < n) {
      if (lf < start) lf = indexOr(text, "\n", start, n);
      if (cr < start) cr = indexOr(text, "\r", start, n);
      const end = lf < cr ? lf : cr;
      if (end === n) break;
      const piece = text.slice(start, end);
      if (this.#rest.length === 0) this.#line(piece);
      else {
        this.#rest.push(piece);
        this.#line(this.#rest.join(""));
        this.#rest = [];
      }
      if (end === cr && end + 1 < n && text.charCodeAt(end + 1) === LF) start = end + 2;
      else {
        start = end + 1;
        if (end === cr && start === n) this.#afterCr = true;
      }
    }
    if (start < n) this.#rest.push(text.slice(start));
  }

  #line(line: string): void {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
  }

  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = undefined;
    if (data.length === 0) return;
    this.#onEvent({ event, data: data.length === 1 ? data[0] : data.join("\n") });
  }
}

function indexOr(text: string, needle: string, from: number, none: number): number {
  const i = text.indexOf(needle, from);
  return i < 0 ? none : i;
}
