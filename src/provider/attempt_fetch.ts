/**
 * The fetch the SDK uses for one attempt. It sits between the SDK and the
 * network and does three things the SDK cannot: an idle timeout (no bytes for N
 * ms aborts the attempt; every received byte resets the clock, so slow but
 * active streams live), a copy of the raw exchange (for `--record`, for error
 * bodies in any shape, and to know whether `[DONE]` arrived), and turning a
 * non-streamed JSON completion (servers that ignore `stream: true`) into SSE.
 */
import { ProviderError } from "./errors.ts";
import { formatMs } from "./retry.ts";
import { completionToSse } from "./nonstream.ts";
import { concatBytes } from "../util/bytes.ts";

/** What one attempt sent and received, as raw as the SDK saw it. */
export class Exchange {
  url = "";
  requestBody = "";
  status = 0;
  headers: Record<string, string> = {};
  /** True when the body was a JSON completion turned into SSE (it counts as `[DONE]`). */
  synthesized = false;
  private readonly chunks: Uint8Array[] = [];

  append(bytes: Uint8Array): void {
    this.chunks.push(bytes);
  }

  /** The raw body received so far, decoded once (chunks may split UTF-8 sequences). */
  text(): string {
    return new TextDecoder().decode(concatBytes(this.chunks));
  }

  get responded(): boolean {
    return this.status !== 0;
  }

  sawDone(): boolean {
    return this.synthesized || /(^|\n)data: ?\[DONE\]/.test(this.text());
  }
}

export interface AttemptFetchOptions {
  base: typeof fetch;
  idleTimeoutMs: number;
  exchange: Exchange;
  /** `provider/model`, for messages. */
  label: string;
}

export function attemptFetch(opts: AttemptFetchOptions): typeof fetch {
  const { exchange: ex, idleTimeoutMs } = opts;
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    ex.url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    ex.requestBody = typeof init?.body === "string" ? init.body : "";
    const ctl = new AbortController();
    const outer = init?.signal ?? undefined;
    const relay = () => ctl.abort(outer?.reason);
    if (outer?.aborted) ctl.abort(outer.reason);
    else outer?.addEventListener("abort", relay, { once: true });
    const release = () => outer?.removeEventListener("abort", relay);
    const stall = () => {
      const err = new ProviderError(
        "stalled",
        `${opts.label}: no data from the provider for ${formatMs(idleTimeoutMs)}`,
      );
      ctl.abort(err);
      return err;
    };

    let res: Response;
    try {
      res = await withIdleTimeout(
        opts.base(input, { ...init, signal: ctl.signal }),
        idleTimeoutMs,
        stall,
      );
    } catch (e) {
      release();
      throw e;
    }
    ex.status = res.status;
    ex.headers = Object.fromEntries(res.headers);
    if (!res.body) {
      release();
      return res;
    }
    const body = watchBody(res.body, idleTimeoutMs, (b) => ex.append(b), stall, release);
    const type = res.headers.get("content-type") ?? "";
    if (res.ok && /json/i.test(type) && !/event-stream/i.test(type)) {
      const text = await new Response(body).text();
      ex.synthesized = true;
      const headers = new Headers(res.headers);
      headers.set("content-type", "text/event-stream");
      return new Response(completionToSse(text), { status: res.status, headers });
    }
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

function withIdleTimeout<T>(work: Promise<T>, ms: number, onStall: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onStall()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Re-streams `src`, failing it with `onStall()` when a read waits longer than `ms`. */
function watchBody(
  src: ReadableStream<Uint8Array>,
  ms: number,
  onChunk: (b: Uint8Array) => void,
  onStall: () => Error,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const reader = src.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const timeout = new Promise<"stalled">((resolve) => {
        timer = setTimeout(() => resolve("stalled"), ms);
      });
      try {
        const r = await Promise.race([reader.read(), timeout]);
        if (r === "stalled") {
          const err = onStall();
          controller.error(err);
          reader.cancel(err).catch(() => {});
          onEnd();
        } else if (r.done) {
          controller.close();
          onEnd();
        } else {
          onChunk(r.value);
          controller.enqueue(r.value);
        }
      } catch (e) {
        controller.error(e);
        onEnd();
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      onEnd();
      return reader.cancel(reason);
    },
  });
}
