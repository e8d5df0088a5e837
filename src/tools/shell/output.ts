/**
 * Output of one shell process as it arrives, bounded in memory: the first
 * `headChars` and the last `tailChars` are kept, the middle of a flood is counted
 * and dropped. Background jobs read it incrementally (`readFrom`).
 */
export interface OutputLimits {
  headChars: number;
  tailChars: number;
}

const DEFAULT_OUTPUT_LIMITS: OutputLimits = { headChars: 1 << 20, tailChars: 1 << 20 };

export class OutputBuffer {
  #head = "";
  #tail = "";
  #total = 0;
  readonly #limits: OutputLimits;

  constructor(limits: OutputLimits = DEFAULT_OUTPUT_LIMITS) {
    this.#limits = limits;
  }

  /** Characters appended so far, kept or not. */
  get total(): number {
    return this.#total;
  }

  append(text: string): void {
    if (text === "") return;
    this.#total += text.length;
    const room = this.#limits.headChars - this.#head.length;
    if (room > 0) {
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === "") return;
    this.#tail += text;
    if (this.#tail.length > this.#limits.tailChars * 2) {
      this.#tail = this.#tail.slice(this.#tail.length - this.#limits.tailChars);
    }
  }

  /** Everything kept, with a note where the middle was dropped. */
  text(): string {
    return this.readFrom(0).text;
  }

  /** The output from character `pos` on, and the position to continue from. */
  readFrom(pos: number): { text: string; next: number } {
    const tail = this.#tail.length > this.#limits.tailChars
      ? this.#tail.slice(this.#tail.length - this.#limits.tailChars)
      : this.#tail;
    const tailStart = this.#total - tail.length;
    let out = "";
    if (pos < this.#head.length) out += this.#head.slice(pos);
    const from = Math.max(pos, this.#head.length);
    if (from < tailStart) {
      out += `\n[... ${tailStart - from} characters of output were not kept ...]\n`;
    }
    out += tail.slice(Math.max(0, from - tailStart));
    return { text: out, next: this.#total };
  }
}
