/**
 * stdout and stderr for the CLI. Writes are synchronous so that everything is out
 * before `Deno.exit`, also when stdout is a pipe (DESIGN §1).
 */

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const encoder = new TextEncoder();

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
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
