/**
 * One page of a long text for tools whose output would not fit in the tool output
 * limit (fetch): a page ends at a line end when one is in its second half, and the
 * caller tells the model the offset the next page starts at.
 */

/** Characters `offset` to at most `offset + max` of `text`; `end` is where the next page starts. */
export function pageOf(text: string, offset: number, max: number): { text: string; end: number } {
  if (offset >= text.length) return { text: "", end: text.length };
  let end = Math.min(text.length, offset + max);
  if (end < text.length) {
    const nl = text.lastIndexOf("\n", end - 1);
    if (nl >= offset + max / 2) end = nl + 1;
    // Never between the two halves of a surrogate pair.
    else if (/[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  }
  return { text: text.slice(offset, end), end };
}
