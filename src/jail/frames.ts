/**
 * Reads the supervisor's frames (see supervisor.ts) from its stdout: a JSON header
 * line, and for output frames that many raw bytes after it. What comes out of the
 * jail is the model's side, so anything malformed ends the reading with an error
 * instead of being guessed at.
 */

export type Frame =
  | { t: "ready" }
  | { t: "started"; id: number; pid: number }
  | { t: "out"; id: number; fd: number; data: Uint8Array }
  | { t: "eof"; id: number; fd: number }
  | { t: "exit"; id: number; code: number; signal: Deno.Signal | null }
  /** `nocwd`: the command's folder does not exist inside the jail. */
  | { t: "fail"; id: number; error: string; nocwd?: boolean }
  | { t: "fatal"; error: string };

/** A header longer than this is not one of ours. */
const MAX_HEADER = 4096;

export class FrameError extends Error {}

export async function* readFrames(stream: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const dec = new TextDecoder();
  let buf: Uint8Array = new Uint8Array(0);
  let want: { head: Record<string, unknown>; n: number } | undefined;
  for await (const chunk of stream) {
    buf = join(buf, chunk);
    while (true) {
      if (want) {
        if (buf.length < want.n) break;
        const data = buf.slice(0, want.n);
        buf = buf.subarray(want.n);
        yield { ...want.head, data } as Frame;
        want = undefined;
        continue;
      }
      const nl = buf.indexOf(10);
      if (nl < 0) {
        if (buf.length > MAX_HEADER) throw new FrameError("a frame header is too long");
        break;
      }
      if (nl > MAX_HEADER) throw new FrameError("a frame header is too long");
      const head = parseHeader(dec.decode(buf.subarray(0, nl)));
      buf = buf.subarray(nl + 1);
      if (head.t === "out") want = { head, n: head.n as number };
      else yield head as Frame;
    }
  }
  if (want || buf.length > 0) throw new FrameError("the jail's output ended inside a frame");
}

function parseHeader(text: string): Record<string, unknown> {
  let head: unknown;
  try {
    head = JSON.parse(text);
  } catch {
    throw new FrameError(`not a frame header: ${text.slice(0, 80)}`);
  }
  if (!isHeader(head)) throw new FrameError(`not a frame header: ${text.slice(0, 80)}`);
  return head;
}

function isHeader(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const h = v as Record<string, unknown>;
  const int = (x: unknown) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
  switch (h.t) {
    case "ready":
      return true;
    case "started":
      return int(h.id) && int(h.pid);
    case "out":
      return int(h.id) && (h.fd === 1 || h.fd === 2) && int(h.n) && (h.n as number) <= 1 << 24;
    case "eof":
      return int(h.id) && (h.fd === 1 || h.fd === 2);
    case "exit":
      return int(h.id) && typeof h.code === "number" &&
        (h.signal === null || typeof h.signal === "string");
    case "fail":
      return int(h.id) && typeof h.error === "string";
    case "fatal":
      return typeof h.error === "string";
    default:
      return false;
  }
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
