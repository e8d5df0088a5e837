/**
 * Text that arrives in many small pieces (a streamed answer, reasoning, tool-call
 * arguments). `s += piece` would make every piece a node of a rope that V8 keeps
 * until something flattens it, and reading such a string (a regex, a comparison,
 * JSON) copies all of it each time. Here a piece costs one array slot until a few
 * hundred of them are joined into one flat block, so memory stays close to the text's
 * own bytes and appending takes the same time however long the text already is.
 *
 * The blocks are kept as they are: the whole text is joined only when asked for, and
 * that copy is dropped at the next append, so a long-lived builder never turns its
 * earlier copies into garbage the collector must find in the old generation.
 */

/** Pieces joined into one block at a time: large enough to be rare, small enough to be cheap. */
const PIECES_PER_BLOCK = 512;

export class TextBuilder {
  #blocks: string[] = [];
  #pieces: string[] = [];
  #length = 0;
  /** The whole text, while nothing was appended since it was joined. */
  #joined: string | undefined;

  constructor(initial = "") {
    if (initial !== "") this.append(initial);
  }

  /** Characters (UTF-16 code units) so far. */
  get length(): number {
    return this.#length;
  }

  append(piece: string): void {
    if (piece === "") return;
    this.#joined = undefined;
    this.#pieces.push(piece);
    this.#length += piece.length;
    if (this.#pieces.length >= PIECES_PER_BLOCK) this.#seal();
  }

  /** The whole text as one flat string; asking again without appending is free. */
  toString(): string {
    if (this.#joined !== undefined) return this.#joined;
    this.#seal();
    // One join of everything: `a + b` would make a rope again.
    this.#joined = this.#blocks.length === 1 ? this.#blocks[0] : this.#blocks.join("");
    return this.#joined;
  }

  /** The pending pieces become a block (merged into a short last block, so blocks stay few). */
  #seal(): void {
    if (this.#pieces.length === 0) return;
    const last = this.#blocks.length - 1;
    if (last >= 0 && this.#blocks[last].length < 4096) {
      this.#pieces.unshift(this.#blocks[last]);
      this.#blocks[last] = this.#pieces.join("");
    } else {
      this.#blocks.push(this.#pieces.length === 1 ? this.#pieces[0] : this.#pieces.join(""));
    }
    this.#pieces = [];
  }
}
