/**
 * The hosts-mode proxy, as clients in the jail use it: CONNECT tunnels and plain
 * HTTP requests to listed hosts get through; anything else, and names that lead to
 * a loopback address without being listed by it, get a 403 and a log line.
 */
import assert from "node:assert/strict";
import { NetworkProxy } from "../../src/jail/proxy.ts";

function upstream(): { port: number; seen: string[]; close(): Promise<void> } {
  const seen: string[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    (req) => {
      seen.push(
        `${req.method} ${new URL(req.url).pathname} ${
          req.headers.get("proxy-authorization") ?? "-"
        }`,
      );
      return new Response(`hello ${new URL(req.url).pathname}`);
    },
  );
  return {
    port: server.addr.port,
    seen,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

/** Sends raw bytes to the proxy and reads until it closes. */
async function exchange(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
}

Deno.test("proxy: plain HTTP to a listed host is forwarded in origin form, proxy headers dropped", async () => {
  const up = upstream();
  const log: string[] = [];
  const proxy = NetworkProxy.start({ hosts: [`127.0.0.1:${up.port}`], log: (l) => log.push(l) });
  try {
    const res = await exchange(
      proxy.port,
      `GET http://127.0.0.1:${up.port}/pkg?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${up.port}\r\n` +
        "Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\n\r\n",
    );
    assert.match(res, /^HTTP\/1\.1 200/);
    assert.match(res, /hello \/pkg$/);
    assert.deepEqual(up.seen, ["GET /pkg -"]);
    assert.deepEqual(log, []);
  } finally {
    await proxy.close();
    await up.close();
  }
});

Deno.test("proxy: CONNECT to a listed host tunnels; unlisted hosts and ports get 403", async () => {
  const up = upstream();
  const other = upstream();
  const log: string[] = [];
  const proxy = NetworkProxy.start({ hosts: [`127.0.0.1:${up.port}`], log: (l) => log.push(l) });
  try {
    const tunnel = await exchange(
      proxy.port,
      `CONNECT 127.0.0.1:${up.port} HTTP/1.1\r\nHost: x\r\n\r\n` +
        `GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    assert.match(tunnel, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200/);
    assert.match(tunnel, /hello \/through$/);
    for (const target of [`127.0.0.1:${other.port}`, "example.com:443", "169.254.169.254:80"]) {
      const refused = await exchange(proxy.port, `CONNECT ${target} HTTP/1.1\r\n\r\n`);
      assert.match(refused, /^HTTP\/1\.1 403 Forbidden/, target);
      assert.match(refused, /is not in bash\.network\.hosts/);
    }
    const plain = await exchange(
      proxy.port,
      `GET http://127.0.0.1:${other.port}/ HTTP/1.1\r\n\r\n`,
    );
    assert.match(plain, /^HTTP\/1\.1 403/);
    assert.deepEqual(other.seen, []);
    assert.equal(log.length, 4);
    assert.match(log[0], /refused 127\.0\.0\.1:\d+ \(not in bash\.network\.hosts\)/);
  } finally {
    await proxy.close();
    await up.close();
    await other.close();
  }
});

Deno.test("proxy: a listed name that resolves to loopback is refused after connecting", async () => {
  const up = upstream();
  const log: string[] = [];
  const proxy = NetworkProxy.start({ hosts: [`localhost:${up.port}`], log: (l) => log.push(l) });
  try {
    const res = await exchange(proxy.port, `CONNECT localhost:${up.port} HTTP/1.1\r\n\r\n`);
    assert.match(res, /^HTTP\/1\.1 403/);
    assert.match(res, /resolves to a forbidden address 127\.0\.0\.1/);
    assert.deepEqual(up.seen, []);
    assert.match(log[0], /refused localhost:\d+: it resolves to 127\.0\.0\.1/);
  } finally {
    await proxy.close();
    await up.close();
  }
});

Deno.test("proxy: malformed requests and https in absolute form are 400", async () => {
  const proxy = NetworkProxy.start({ hosts: ["example.com"] });
  try {
    assert.match(await exchange(proxy.port, "nonsense\r\n\r\n"), /^HTTP\/1\.1 400/);
    assert.match(
      await exchange(proxy.port, "CONNECT example.com HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 400/,
    );
    assert.match(
      await exchange(proxy.port, "GET https://example.com/ HTTP/1.1\r\n\r\n"),
      /use CONNECT for https/,
    );
  } finally {
    await proxy.close();
  }
});
