/**
 * The network of a jail in `hosts` mode: an HTTP proxy inside mopac (CONNECT for
 * HTTPS and any TCP, absolute-URL requests for plain HTTP) on a loopback port. On
 * Linux the jail has its own network namespace: a socat on the host turns the port
 * into a Unix socket (bridge.ts), which is mounted into the jail, where a second
 * socat turns it back into a loopback port that HTTP(S)_PROXY point at. It lets a connection through only to a host the allowlist
 * names, and only when the address reached is not loopback, link-local or metadata
 * (unless listed by address). Upstream connections are mopac's own, so Deno's
 * `--allow-net` must name the same hosts (`mopac sandbox` prints them).
 */
import { HostAllowlist } from "./hosts.ts";

export interface ProxyOptions {
  hosts: readonly string[];
  /** One line per refused or failed connection. */
  log?: (line: string) => void;
}

const MAX_HEAD = 64 * 1024;

export class NetworkProxy {
  readonly #listener: Deno.Listener;
  readonly #allow: HostAllowlist;
  readonly #log: (line: string) => void;
  readonly #conns = new Set<Deno.Conn>();
  readonly #serving: Promise<void>;

  private constructor(listener: Deno.Listener, opts: ProxyOptions) {
    this.#listener = listener;
    this.#allow = new HostAllowlist(opts.hosts);
    this.#log = opts.log ?? (() => {});
    this.#serving = this.#serve();
  }

  /** Listens on a free loopback port (Deno: `--allow-net=127.0.0.1:0`). */
  static start(opts: ProxyOptions): NetworkProxy {
    return new NetworkProxy(Deno.listen({ hostname: "127.0.0.1", port: 0 }), opts);
  }

  get port(): number {
    return (this.#listener.addr as Deno.NetAddr).port;
  }

  async close(): Promise<void> {
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    for (const c of this.#conns) closeQuietly(c);
    await this.#serving;
  }

  async #serve(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        this.#conns.add(conn);
        void this.#handle(conn).finally(() => {
          this.#conns.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch {
      // the listener was closed
    }
  }

  async #handle(client: Deno.Conn): Promise<void> {
    const head = await readHead(client);
    if (!head) return reply(client, 400, "mopac proxy: malformed request");
    const [method, target, version] = head.lines[0].split(" ");
    let host: string;
    let port: number;
    let upstreamHead: Uint8Array | undefined;
    if (method === "CONNECT") {
      const m = target?.match(/^(\[[^\]]+\]|[^:]+):(\d+)$/);
      if (!m) return reply(client, 400, "mopac proxy: CONNECT needs host:port");
      host = m[1].replace(/^\[|\]$/g, "");
      port = Number(m[2]);
    } else {
      let url: URL;
      try {
        url = new URL(target ?? "");
      } catch {
        return reply(client, 400, "mopac proxy: only absolute http:// URLs and CONNECT");
      }
      if (url.protocol !== "http:") {
        return reply(client, 400, "mopac proxy: use CONNECT for https");
      }
      host = url.hostname.replace(/^\[|\]$/g, "");
      port = Number(url.port || 80);
      upstreamHead = originRequest(method, url, version ?? "HTTP/1.1", head.lines.slice(1));
    }
    if (!this.#allow.allows(host, port)) {
      this.#log(`jail proxy: refused ${host}:${port} (not in bash.network.hosts)`);
      return reply(client, 403, `mopac: ${host}:${port} is not in bash.network.hosts`);
    }
    let upstream: Deno.TcpConn;
    try {
      upstream = await Deno.connect({ hostname: host, port });
    } catch (err) {
      this.#log(`jail proxy: cannot reach ${host}:${port}: ${(err as Error).message}`);
      return reply(client, 502, `mopac: cannot reach ${host}:${port}`);
    }
    this.#conns.add(upstream);
    try {
      const address = (upstream.remoteAddr as Deno.NetAddr).hostname;
      if (!this.#allow.addressAllowed(host, address)) {
        this.#log(`jail proxy: refused ${host}:${port}: it resolves to ${address}`);
        return reply(client, 403, `mopac: ${host} resolves to a forbidden address ${address}`);
      }
      if (upstreamHead) await writeAll(upstream, upstreamHead);
      else await writeAll(client, enc("HTTP/1.1 200 Connection Established\r\n\r\n"));
      if (head.rest.length > 0) await writeAll(upstream, head.rest);
      await relay(client, upstream);
    } finally {
      this.#conns.delete(upstream);
      closeQuietly(upstream);
    }
  }
}

/** The request as the origin server expects it: path only, no proxy headers, one request. */
function originRequest(method: string, url: URL, version: string, headers: string[]): Uint8Array {
  const kept = headers.filter((h) => !/^(proxy-[a-z-]*|connection|keep-alive)\s*:/i.test(h));
  const lines = [`${method} ${url.pathname}${url.search} ${version}`, ...kept, "Connection: close"];
  return enc(lines.join("\r\n") + "\r\n\r\n");
}

async function readHead(
  conn: Deno.Conn,
): Promise<{ lines: string[]; rest: Uint8Array } | undefined> {
  let buf = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  while (buf.length < MAX_HEAD) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return undefined;
    const next = new Uint8Array(buf.length + n);
    next.set(buf);
    next.set(chunk.subarray(0, n), buf.length);
    buf = next;
    const end = indexOfHeadEnd(buf);
    if (end >= 0) {
      const text = new TextDecoder().decode(buf.subarray(0, end));
      return { lines: text.split("\r\n"), rest: buf.slice(end + 4) };
    }
  }
  return undefined;
}

function indexOfHeadEnd(buf: Uint8Array): number {
  for (let i = 0; i + 3 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

async function relay(a: Deno.Conn, b: Deno.Conn): Promise<void> {
  const pipe = (from: Deno.Conn, to: Deno.Conn) =>
    from.readable.pipeTo(to.writable, { preventClose: true }).catch(() => {});
  // Either side ending ends the tunnel: HTTP clients do not half-close through proxies.
  await Promise.race([pipe(a, b), pipe(b, a)]);
}

async function reply(conn: Deno.Conn, status: number, text: string): Promise<void> {
  const reason = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" }[status] ?? "Error";
  const body = text + "\n";
  const head = `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\n` +
    `Content-Length: ${enc(body).length}\r\nConnection: close\r\n\r\n`;
  await writeAll(conn, enc(head + body)).catch(() => {});
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

function enc(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
