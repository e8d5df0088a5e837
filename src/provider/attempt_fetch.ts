/**
 * The fetch of one attempt (chat_post.ts sends through it). It sits between the request and the
 * network and does three things on top of fetch: an idle timeout (no bytes for N
 * ms aborts the attempt; every received byte resets the clock, so slow but
 * active streams live), a copy of the raw exchange (for `--record` and for error
 * bodies in any shape), and turning a non-streamed JSON completion (servers that
 * ignore `stream: true`) into SSE.
 */
import { ProviderError } from "./errors.ts";
import { formatMs } from "./retry.ts";
import { completionToSse } from "./nonstream.ts";
import { watchBody } from "./watched_body.ts";

/** Bytes of the body kept when no cassette wants all of it: enough for any error body. */
const HEAD_BYTES = 64 * 1024;

/**
 * What one attempt sent and received, as raw as it crossed the wire. The body is copied
 * out of each read: a read's bytes are a view into the runtime's 64 KiB buffer, and
 * keeping the view would keep the whole buffer alive for a few bytes of SSE. Only a
 * cassette (`keepBody`) needs the whole body; otherwise its first 64 KiB are kept.
 */
export class Exchange {
  url = "";
  requestBody = "";
  status = 0;
  headers: Record<string, string> = {};
  /** True when the body was a JSON completion turned into SSE (it counts as `[DONE]`). */
  synthesized = false;
  readonly #limit: number;
  #body = new Uint8Array(0);
  #size = 0;

  constructor(opts: { keepBody?: boolean } = {}) {
    this.#limit = opts.keepBody ? Infinity : HEAD_BYTES;
  }

  append(bytes: Uint8Array): void {
    const take = Math.min(bytes.length, this.#limit - this.#size);
    if (take <= 0) return;
    if (this.#size + take > this.#body.length) {
      const grown = new Uint8Array(Math.max(this.#size + take, this.#body.length * 2, 1024));
      grown.set(this.#body.subarray(0, this.#size));
      this.#body = grown;
    }
    this.#body.set(bytes.subarray(0, take), this.#size);
    this.#size += take;
  }

  /** The body kept so far, decoded once (reads may split UTF-8 sequences). */
  text(): string {
    return new TextDecoder().decode(this.#body.subarray(0, this.#size));
  }

  get responded(): boolean {
    return this.status !== 0;
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
