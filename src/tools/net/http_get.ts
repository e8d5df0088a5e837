/**
 * One HTTP/1.1 GET over a connection whose address was checked after DNS. Deno's
 * `fetch` resolves the name itself and reports no address, so a name that resolves
 * to 169.254.169.254 (or to a public address at check time and a private one a
 * moment later) could not be refused there. Here the TCP connection is opened first
 * (under the host's own `--allow-net` grant), its peer address is checked, and only
 * then is TLS started and the request sent on that same connection. Proxies are not
 * used. The response comes back as a standard `Response`.
 */
import { canonicalAddress, isLocalName, isPrivateAddress } from "./addresses.ts";

export interface HttpGetOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Addresses (canonical form, with or without `:port`) the operator listed: allowed anyway. */
  listedAddresses: readonly string[];
  /** Extra CA certificates (tests). */
  caCerts?: string[];
  /** Opens the TCP connection (default Deno.connect); tests stand in for DNS with it. */
  connect?: (to: { hostname: string; port: number }) => Promise<Deno.Conn>;
}

/** The request was refused before anything was sent. */
export class AddressRefused extends Error {}

const MAX_HEAD_BYTES = 64 * 1024;

export async function httpGet(url: URL, opts: HttpGetOptions): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const listed = (ip: string) => {
    const c = canonicalAddress(ip) ?? ip;
    return opts.listedAddresses.some((a) => a === c || a === `${c}:${port}`);
  };
  if (isLocalName(host) && !listed(host)) {
    throw new AddressRefused(`${host} names this machine or a metadata service`);
  }
  // An address written in the URL is refused before any connection is made.
  if (canonicalAddress(host) !== undefined && isPrivateAddress(host) && !listed(host)) {
    throw new AddressRefused(`${host} is a loopback, private, link-local or metadata address`);
  }
  let conn: Deno.Conn = await (opts.connect ?? Deno.connect)({ hostname: host, port });
  const onAbort = () => conn.close();
  opts.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const ip = (conn.remoteAddr as Deno.NetAddr).hostname;
    if (isPrivateAddress(ip) && !listed(ip)) {
      throw new AddressRefused(
        `${host} resolves to ${ip}, a loopback, private, link-local or metadata address`,
      );
    }
    if (url.protocol === "https:") {
      conn = await Deno.startTls(conn as Deno.TcpConn, { hostname: host, caCerts: opts.caCerts });
    }
    const target = `${url.pathname || "/"}${url.search}`;
    const lines = [`GET ${target} HTTP/1.1`, `Host: ${url.host}`, "Connection: close"];
    for (const [k, v] of Object.entries(opts.headers)) lines.push(`${k}: ${v}`);
    await writeAll(conn, new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
    const response = await readResponse(conn, () => {
      opts.signal.removeEventListener("abort", onAbort);
      tryClose(conn);
    });
    return response;
  } catch (err) {
    opts.signal.removeEventListener("abort", onAbort);
    tryClose(conn);
    if (opts.signal.aborted) throw opts.signal.reason ?? err;
    throw err;
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function tryClose(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

/** Reads the status line and headers, then hands the body over as a stream. */
async function readResponse(conn: Deno.Conn, done: () => void): Promise<Response> {
  const reader = new BufferedReader(conn);
  for (;;) {
    const head = await reader.readHead();
    const [statusLine, ...headerLines] = head.split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
    if (!m) throw new Error(`not an HTTP/1.1 response: ${statusLine.slice(0, 80)}`);
    const status = Number(m[1]);
    if (status >= 100 && status < 200) continue; // 100 Continue and the like
    const headers = new Headers();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    let body: ReadableStream<Uint8Array> | null = status === 204 || status === 304
      ? null
      : bodyStream(reader, headers, done);
    if (body === null) done();
    const coding = headers.get("content-encoding")?.toLowerCase();
    if (body && (coding === "gzip" || coding === "deflate")) {
      body = body.pipeThrough(
        new DecompressionStream(coding) as unknown as TransformStream<Uint8Array, Uint8Array>,
      );
    } else if (body && coding && coding !== "identity") {
      await body.cancel();
      throw new Error(`unsupported content encoding: ${coding}`);
    }
    return new Response(body, { status, statusText: m[2] ?? "", headers });
  }
}

function bodyStream(
  reader: BufferedReader,
  headers: Headers,
  done: () => void,
): ReadableStream<Uint8Array> {
  const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
  const lengthHeader = headers.get("content-length");
  let left = !chunked && lengthHeader !== null ? Number(lengthHeader) : Infinity;
  let chunkLeft = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (chunked && chunkLeft === 0) {
          const size = parseInt((await reader.readLine()).split(";")[0], 16);
          if (!Number.isFinite(size)) throw new Error("bad chunk size");
          if (size === 0) {
            done();
            controller.close();
            return;
          }
          chunkLeft = size;
        }
        const want = chunked ? chunkLeft : left;
        if (want <= 0) {
          done();
          controller.close();
          return;
        }
        const bytes = await reader.read(Math.min(want, 64 * 1024));
        if (bytes === null) {
          if (chunked || Number.isFinite(left)) throw new Error("connection closed mid-body");
          done();
          controller.close();
          return;
        }
        if (chunked) {
          chunkLeft -= bytes.length;
          if (chunkLeft === 0) await reader.readLine(); // the CRLF after a chunk
        } else left -= bytes.length;
        controller.enqueue(bytes);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel() {
      done();
    },
  });
}

/** Reads from a connection with a small look-ahead buffer. */
class BufferedReader {
  #buf = new Uint8Array(0);
  constructor(private readonly conn: Deno.Conn) {}

  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(16 * 1024);
    const n = await this.conn.read(chunk);
    if (n === null) return false;
    const next = new Uint8Array(this.#buf.length + n);
    next.set(this.#buf);
    next.set(chunk.subarray(0, n), this.#buf.length);
    this.#buf = next;
    return true;
  }

  #take(n: number): Uint8Array {
    const out = this.#buf.slice(0, n);
    this.#buf = this.#buf.slice(n);
    return out;
  }

  #find(seq: string): number {
    const bytes = new TextEncoder().encode(seq);
    outer: for (let i = 0; i + bytes.length <= this.#buf.length; i++) {
      for (let k = 0; k < bytes.length; k++) if (this.#buf[i + k] !== bytes[k]) continue outer;
      return i;
    }
    return -1;
  }

  async readHead(): Promise<string> {
    for (;;) {
      const at = this.#find("\r\n\r\n");
      if (at >= 0) return new TextDecoder().decode(this.#take(at + 4)).slice(0, -4);
      if (this.#buf.length > MAX_HEAD_BYTES) throw new Error("response headers too large");
      if (!(await this.#fill())) throw new Error("connection closed before the response");
    }
  }

  async readLine(): Promise<string> {
    for (;;) {
      const at = this.#find("\r\n");
      if (at >= 0) return new TextDecoder().decode(this.#take(at + 2)).slice(0, -2);
      if (this.#buf.length > MAX_HEAD_BYTES) throw new Error("line too long");
      if (!(await this.#fill())) throw new Error("connection closed mid-body");
    }
  }

  async read(max: number): Promise<Uint8Array | null> {
    if (this.#buf.length === 0 && !(await this.#fill())) return null;
    return this.#take(Math.min(max, this.#buf.length));
  }
}
