import assert from "node:assert/strict";
import { createFetchTool } from "../../src/tools/fetch.ts";
import { ToolInputError } from "../../src/util/errors.ts";
import { call, makeContext } from "./_helpers.ts";

const PAGE = `<!doctype html><html><head><title>T</title><style>p{color:red}</style>
<script>var secret = 1;</script></head><body>
<h1>Hello</h1><p>Some <b>bold</b> text and a <a href="/docs">link</a>.</p>
<ul><li>one</li><li>two</li></ul><pre><code>let x = 1;</code></pre></body></html>`;

/** A local server with the cases fetch must handle; `slow` answers only when the test ends. */
function startServer() {
  const { promise: ended, resolve: end } = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/page":
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/plain":
        return new Response("just text\n", { headers: { "content-type": "text/plain" } });
      case "/latin1":
        return new Response(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]), {
          headers: { "content-type": "text/plain; charset=iso-8859-1" },
        });
      case "/big":
        return new Response("a".repeat(3 * 1024 * 1024), {
          headers: { "content-type": "text/plain" },
        });
      case "/image":
        return new Response(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), {
          headers: { "content-type": "image/png" },
        });
      case "/missing":
        return new Response("nope", { status: 404 });
      case "/same-host":
        return new Response(null, { status: 302, headers: { location: "/page" } });
      case "/other-host":
        return new Response(null, {
          status: 301,
          headers: { location: `http://localhost:${url.port}/page` },
        });
      case "/slow":
        await ended;
        return new Response("too late");
    }
    return new Response("?", { status: 500 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const close = async () => {
    end();
    await server.shutdown();
  };
  return { base, port: server.addr.port, close };
}

Deno.test("fetch: HTML becomes Markdown (scripts and styles dropped); text and html formats", async () => {
  const srv = startServer();
  try {
    const ctx = makeContext("/tmp");
    const md = await call(
      createFetchTool({ hosts: ["127.0.0.1"] }),
      { url: `${srv.base}/page` },
      ctx,
    );
    assert.deepEqual(md.access, { hosts: [`127.0.0.1:${srv.port}`] });
    assert.equal(md.out.is_error, undefined, md.out.content);
    assert.match(md.out.content, /^# Hello$/m);
    assert.match(md.out.content, /Some \*\*bold\*\* text and a \[link\]\(\/docs\)\./);
    assert.match(md.out.content, /^- +one$/m);
    assert.match(md.out.content, /```\nlet x = 1;\n```/);
    assert.doesNotMatch(md.out.content, /secret|color:red/);

    const text = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/page`,
      format: "text",
    }, ctx);
    assert.match(text.out.content, /Hello\nSome bold text and a link\./);
    assert.doesNotMatch(text.out.content, /<|secret/);

    const html = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/page`,
      format: "html",
    }, ctx);
    assert.match(html.out.content, /^<html>\n<body>\n<h1>Hello<\/h1>/);
    assert.doesNotMatch(html.out.content, /<script/);

    const plain = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/plain`,
    }, ctx);
    assert.equal(plain.out.content, "just text\n");
    const latin = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/latin1`,
    }, ctx);
    assert.equal(latin.out.content, "café");
  } finally {
    await srv.close();
  }
});

Deno.test("fetch: size cap, time cap, HTTP errors, binary bodies", async () => {
  const srv = startServer();
  try {
    const ctx = makeContext("/tmp");
    const big = await call(createFetchTool({ max_bytes: 1000, hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/big`,
    }, ctx);
    assert.equal(big.out.content, "a".repeat(1000) + "\n\n[The response was cut at 1000 bytes.]");

    const slow = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/slow`,
      timeout: 0.2,
    }, ctx);
    assert.equal(slow.out.is_error, true);
    assert.match(slow.out.content, /took longer than 0\.2 s and was stopped/);

    const missing = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/missing`,
    }, ctx);
    assert.equal(missing.out.is_error, true);
    assert.equal(missing.out.content, "Request failed with status 404 Not Found");

    const image = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/image`,
    }, ctx);
    assert.match(image.out.content, /response is binary \(image\/png\)/);
  } finally {
    await srv.close();
  }
});

Deno.test("fetch: redirects are followed on the approved host only", async () => {
  const srv = startServer();
  try {
    const ctx = makeContext("/tmp");
    const same = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/same-host`,
    }, ctx);
    assert.match(same.out.content, /^# Hello$/m);
    const other = await call(createFetchTool({ hosts: ["127.0.0.1"] }), {
      url: `${srv.base}/other-host`,
    }, ctx);
    assert.equal(other.out.is_error, true);
    assert.match(
      other.out.content,
      /redirects \(301\) to http:\/\/localhost:\d+\/page, on another host/,
    );
  } finally {
    await srv.close();
  }
});

Deno.test("fetch: only http(s) URLs; hosts reported with default ports", async () => {
  const fetchTool = createFetchTool({ hosts: ["127.0.0.1"] });
  for (
    const url of [
      "file:///etc/passwd",
      "ftp://example.com/x",
      "javascript:alert(1)",
      "not a url",
      "/relative",
    ]
  ) {
    assert.throws(() => fetchTool.parse({ url }), ToolInputError, url);
  }
  assert.throws(
    () => fetchTool.parse({ url: "https://x.dev", format: "pdf" }),
    /format must be one of/,
  );
  const ctx = makeContext("/tmp");
  assert.deepEqual(
    await fetchTool.access!(fetchTool.parse({ url: "https://example.com/a" }), ctx),
    {
      hosts: ["example.com:443"],
    },
  );
  assert.deepEqual(
    await fetchTool.access!(fetchTool.parse({ url: "http://Example.COM/a?b" }), ctx),
    {
      hosts: ["example.com:80"],
    },
  );
  assert.deepEqual(await fetchTool.access!(fetchTool.parse({ url: "http://[::1]:8080/" }), ctx), {
    hosts: ["[::1]:8080"],
  });
});

Deno.test("fetch: long content comes in pages cut at line ends, read once, to its end", async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `row ${i + 1} ${"z".repeat(40)}`);
  const body = lines.join("\n") + "\n";
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response(body, { headers: { "content-type": "text/plain" } });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/rows`;
    const tool = createFetchTool({ page_chars: 20_000, hosts: ["127.0.0.1"] });
    const ctx = makeContext("/tmp");
    let offset = 0;
    let text = "";
    for (let page = 0; page < 20; page++) {
      const { out } = await call(tool, { url, format: "text", ...(offset ? { offset } : {}) }, ctx);
      assert.equal(out.is_error, undefined, out.content);
      const more =
        /\n\n\(Characters (\d+)-(\d+) of (\d+) shown; (\d+) remain: call fetch with the same url and format and offset (\d+) to continue\.\)$/
          .exec(out.content);
      const end = /\n\n\(Characters (\d+)-(\d+) of (\d+): the end\.\)$/.exec(out.content);
      const note = more ?? end;
      assert.ok(note, out.content.slice(-200));
      const chunk = out.content.slice(0, note.index);
      assert.ok(chunk.length <= 20_000);
      text += chunk;
      if (!more) break;
      assert.ok(chunk.endsWith("\n"), "a page ends at a line end");
      assert.equal(Number(more[4]), body.length - Number(more[5]));
      offset = Number(more[5]);
    }
    assert.equal(text, body);
    assert.equal(hits, 1, "later pages come from the document already read");
    const past = await call(tool, { url, format: "text", offset: body.length + 5 }, ctx);
    assert.equal(past.out.is_error, true);
    assert.match(past.out.content, /past the end of the content/);
  } finally {
    await server.shutdown();
  }
});
