/**
 * fetch refuses loopback, private, link-local and metadata addresses, however the
 * URL spells them and also when a name resolves to one, unless fetch.hosts lists the
 * address; a local listener receives no byte of a refused request.
 */
import assert from "node:assert/strict";
import { createFetchTool, listedAddresses } from "../../src/tools/fetch.ts";
import { isPrivateAddress } from "../../src/tools/net/addresses.ts";
import { call, makeContext } from "./_helpers.ts";
import { waitFor } from "../_support/wait.ts";

/** A raw TCP listener that records every connection and every byte it receives. */
function listener() {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  let connections = 0;
  let closed = 0;
  let bytes = 0;
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of l) {
      connections++;
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        try {
          for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) bytes += n;
        } catch {
          // closed
        }
        closed++;
      })();
    }
  })();
  return {
    port,
    stats: () => ({ connections, bytes }),
    /** Every connection made so far was closed by its peer: `bytes` is final. */
    allClosed: () => closed === connections,
    close() {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      l.close();
    },
  };
}

const ADDRESS_SPELLINGS = (port: number) => [
  `http://127.0.0.1:${port}/`,
  `http://127.1:${port}/`,
  `http://0x7f000001:${port}/`,
  `http://2130706433:${port}/`,
  `http://0177.0.0.1:${port}/`,
  `http://127.0.0.2:${port}/`,
  `http://0.0.0.0:${port}/`,
  `http://[::1]:${port}/`,
  `http://[::ffff:127.0.0.1]:${port}/`,
  `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
  `http://[::]:${port}/`,
  `http://localhost:${port}/`,
  `http://LOCALHOST.:${port}/`,
  `http://app.localhost:${port}/`,
  `http://169.254.169.254/latest/meta-data/`,
  `http://metadata.google.internal/computeMetadata/v1/`,
  `http://[fd00:ec2::254]/latest/meta-data/`,
  `http://100.100.100.200/latest/meta-data/`,
  `http://168.63.129.16/metadata/instance`,
  `http://10.0.0.1:${port}/`,
  `http://192.168.1.1/`,
  `http://172.16.0.1/`,
];

Deno.test("fetch: private addresses in every spelling are refused; the listener gets nothing", async () => {
  const l = listener();
  try {
    const tool = createFetchTool({ hosts: ["*"] });
    const ctx = makeContext("/tmp");
    const failures: string[] = [];
    for (const url of ADDRESS_SPELLINGS(l.port)) {
      const { out } = await call(tool, { url, timeout: 5 }, ctx);
      if (out.is_error !== true || !/^Refused to fetch/.test(out.content)) {
        failures.push(`${url}: ${out.content.slice(0, 120)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(l.stats(), { connections: 0, bytes: 0 });
  } finally {
    l.close();
  }
});

Deno.test("fetch: a name that resolves to a private address is refused after DNS", async () => {
  const l = listener();
  try {
    // The machine's own name resolves through /etc/hosts, to a loopback address here.
    const host = Deno.hostname();
    const tool = createFetchTool({ hosts: ["*"] });
    const { out } = await call(
      tool,
      { url: `http://${host}:${l.port}/`, timeout: 5 },
      makeContext("/tmp"),
    );
    assert.equal(out.is_error, true);
    assert.match(out.content, /resolves to .*(loopback|private)|could not fetch/i);
    assert.equal(l.stats().bytes, 0, "no request byte reached the listener");
  } finally {
    l.close();
  }
});

Deno.test("fetch: an address listed in fetch.hosts is reached, with its port when given", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new URL(req.url).pathname === "/hop"
        ? new Response(null, { status: 302, headers: { location: "/final" } })
        : new Response("reached"),
  );
  try {
    const port = server.addr.port;
    const ctx = makeContext("/tmp");
    for (const hosts of [["127.0.0.1"], [`127.0.0.1:${port}`]]) {
      const { out } = await call(createFetchTool({ hosts }), {
        url: `http://127.0.0.1:${port}/hop`,
      }, ctx);
      assert.equal(out.content, "reached", `${hosts}: ${out.content}`);
    }
    const otherPort = await call(
      createFetchTool({ hosts: ["127.0.0.1:1"] }),
      { url: `http://127.0.0.1:${port}/` },
      ctx,
    );
    assert.match(otherPort.out.content, /^Refused/);
    // Listing the name is not listing the address.
    const byName = await call(
      createFetchTool({ hosts: ["localhost"] }),
      { url: `http://localhost:${port}/` },
      ctx,
    );
    assert.match(byName.out.content, /^Refused/);
  } finally {
    await server.shutdown();
  }
});

/** `conn` as if DNS had sent it to `hostname` (what the peer-address check reads). */
function seenAs(conn: Deno.Conn, hostname: string): Deno.Conn {
  return new Proxy(conn, {
    get(target, key) {
      if (key === "remoteAddr") return { transport: "tcp", hostname, port: 80 };
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("fetch: every redirect hop connects anew and is checked; a rebound name is refused", async () => {
  const l = listener();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/hop") {
        return new Response(null, { status: 302, headers: { location: "/next" } });
      }
      if (path === "/elsewhere") {
        return new Response(null, {
          status: 302,
          headers: { location: `http://127.0.0.1:${l.port}/steal` },
        });
      }
      if (path === "/metadata") {
        return new Response(null, {
          status: 301,
          headers: { location: "http://169.254.169.254/latest/meta-data/" },
        });
      }
      return new Response("reached");
    },
  );
  try {
    const ctx = makeContext("/tmp");
    // DNS answers a public address for the first hop and the metadata address for the
    // second (rebinding): the second connection lands on the listener, which must get
    // nothing, because the address is checked before a byte is sent.
    let hops = 0;
    const rebinding = createFetchTool({
      hosts: ["*"],
      connect: async () => {
        hops++;
        if (hops === 1) {
          return seenAs(
            await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }),
            "93.184.216.34",
          );
        }
        return seenAs(
          await Deno.connect({ hostname: "127.0.0.1", port: l.port }),
          "169.254.169.254",
        );
      },
    });
    const rebound = await call(rebinding, {
      url: `http://docs.example.test:${server.addr.port}/hop`,
    }, ctx);
    assert.equal(hops, 2);
    assert.equal(rebound.out.is_error, true);
    assert.match(rebound.out.content, /^Refused to fetch .*resolves to 169\.254\.169\.254/);
    // Without the rebinding, the same two hops reach the page.
    hops = 0;
    const honest = createFetchTool({
      hosts: ["*"],
      connect: async () => {
        hops++;
        return seenAs(
          await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }),
          "93.184.216.34",
        );
      },
    });
    const ok = await call(honest, { url: `http://docs.example.test:${server.addr.port}/hop` }, ctx);
    assert.equal(ok.out.content, "reached");
    assert.equal(hops, 2, "one connection, and one check, per hop");
    // A redirect to a private address on another host is not followed at all.
    const listed = createFetchTool({ hosts: [`127.0.0.1:${server.addr.port}`] });
    for (const path of ["/elsewhere", "/metadata"]) {
      const { out } = await call(
        listed,
        { url: `http://127.0.0.1:${server.addr.port}${path}` },
        ctx,
      );
      assert.equal(out.is_error, true, path);
      assert.match(out.content, /on another host\. It was not followed/, path);
    }
    await waitFor(l.allClosed, "the refused connection to close");
    assert.deepEqual(l.stats(), { connections: 1, bytes: 0 }, "no request byte was sent");
  } finally {
    await server.shutdown();
    l.close();
  }
});

Deno.test("address classification and listing", () => {
  for (
    const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "::1",
      "fe80::1",
      "fd00:ec2::254",
      "::ffff:10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "2002:a9fe:a9fe::1",
      "0.0.0.0",
      "224.0.0.1",
      "168.63.129.16",
    ]
  ) {
    assert.equal(isPrivateAddress(ip), true, ip);
  }
  for (const ip of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) {
    assert.equal(isPrivateAddress(ip), false, ip);
  }
  assert.deepEqual(listedAddresses(["docs.example.com", "127.0.0.1:8080", "[::1]", "*.x.org"]), [
    "127.0.0.1:8080",
    "0:0:0:0:0:0:0:1",
  ]);
});
