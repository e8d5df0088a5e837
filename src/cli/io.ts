/**
 * stdout and stderr for the CLI. Writes are synchronous so that everything is out
 * before `Deno.exit`, also when stdout is a pipe (DESIGN §1).
 */

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const encoder = new TextEncoder();
/**
 * One buffer reused for every write (writes are synchronous, so they never overlap): a
 * streamed answer is written a few characters at a time, and `encode` would make a
 * native buffer for each of hundreds of thousands of deltas for the collector to free.
 */
const scratch = new Uint8Array(64 * 1024);

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  // UTF-16 to UTF-8 takes at most 3 bytes per code unit; a larger text gets its own buffer.
  let bytes = text.length * 3 <= scratch.length
    ? scratch.subarray(0, encoder.encodeInto(text, scratch).written)
    : encoder.encode(text);
  while (bytes.length > 0) {
    const n = file.writeSync(bytes);
    bytes = bytes.subarray(n);
  }
}

/** Writes until the reader goes away; a closed pipe (`mopac run … | head`) is not an error. */
function pipeWriter(file: { writeSync(p: Uint8Array): number }): (t: string) => void {
  let closed = false;
  return (t) => {
    if (closed) return;
    try {
      writeAll(file, t);
    } catch (err) {
      if (err instanceof Deno.errors.BrokenPipe) closed = true;
      else throw err;
    }
  };
}

export function processIo(): Io {
  return { out: pipeWriter(Deno.stdout), err: pipeWriter(Deno.stderr) };
}
