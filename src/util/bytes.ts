/** Byte buffers read in chunks: joining them, and reading a stream up to a size. */

/** The chunks as one buffer. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const c of chunks) size += c.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The first `max` bytes of a stream. With more to come, `cut` is set and the stream
 * is cancelled: the rest is never read (a huge page, a git log without end).
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concatBytes(chunks), cut: false };
    if (size + value.length > max) {
      chunks.push(value.subarray(0, max - size));
      await reader.cancel().catch(() => {});
      return { bytes: concatBytes(chunks), cut: true };
    }
    chunks.push(value);
    size += value.length;
  }
}
