/**
 * A pass-through proxy on 127.0.0.1 in front of the fake OpenAI server that can hold
 * a request until the test lets it go. The fake's turns function answers at once, so
 * tests that must prove two requests overlap (parallel sub-agents) or that a request
 * is never waited for (the background title) put this in between.
 */
import type { ParsedRequest } from "../_support/fake_openai.ts";

export interface ProxyHooks {
  /** Runs before the request is forwarded; the request waits until it resolves. */
  before?(body: ParsedRequest): Promise<void> | void;
  /** Runs when the response has been read to its end (responses are then buffered). */
  after?(body: ParsedRequest): void;
}

export interface HoldProxy {
  /** Base URL for mopac.json, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `target` is the fake's base URL (`http://127.0.0.1:PORT/v1`). */
export function startHoldProxy(target: string, hooks: ProxyHooks): HoldProxy {
  const origin = new URL(target).origin;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const raw = await req.text();
    let body: ParsedRequest | undefined;
    try {
      body = JSON.parse(raw);
    } catch { /* forwarded as is; the fake rejects it */ }
    if (body) await hooks.before?.(body);
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.delete("host");
    headers.delete("content-length");
    const res = await fetch(`${origin}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : raw,
    });
    if (!hooks.after || !body) {
      return new Response(res.body, { status: res.status, headers: res.headers });
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    hooks.after(body);
    return new Response(bytes, { status: res.status, headers: res.headers });
  });
  const port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    close: () => server.shutdown(),
  };
}

/** Something a test waits for, with a bound: `wait` is false when it did not happen in time. */
export class Latch {
  #fired = false;
  #resolve!: () => void;
  #promise = new Promise<void>((r) => (this.#resolve = r));

  get fired(): boolean {
    return this.#fired;
  }

  fire(): void {
    this.#fired = true;
    this.#resolve();
  }

  async wait(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
    try {
      return await Promise.race([this.#promise.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Rewrites the workspace's mopac.json (written by workspace()). */
export async function patchConfig(
  dir: string,
  // deno-lint-ignore no-explicit-any -- free-form JSON edited in place
  patch: (config: Record<string, any>) => void,
): Promise<void> {
  const path = `${dir}/mopac.json`;
  const config = JSON.parse(await Deno.readTextFile(path));
  patch(config);
  await Deno.writeTextFile(path, JSON.stringify(config, null, 2));
}

/** The text of a chat message's content (a string or text parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  }
  return "";
}
