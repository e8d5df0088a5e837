/**
 * Where real HTTP matters: a tiny Deno.serve on 127.0.0.1 that stalls, trickles,
 * cuts the connection, or checks what the client sent.
 */
import assert from "node:assert/strict";
import { createProvider } from "../../src/provider/provider.ts";
import { collector, sse, testModel, userRequest } from "./helpers.ts";
import type { ResolvedModel } from "../../src/catalog/types.ts";
import { fakeClock } from "../_support/fake_clock.ts";

const enc = new TextEncoder();
const HELLO = [
  { choices: [{ index: 0, delta: { content: "Hel" } }] },
  { choices: [{ index: 0, delta: { content: "lo" } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
];

interface Seen {
  path: string;
  headers: Headers;
}

interface Served {
  model: (over?: Partial<ResolvedModel>) => ResolvedModel;
  requests: Seen[];
  close: () => Promise<void>;
}

/** `respond(n)` answers the n-th request (0-based). Pending handlers are released on close. */
function serve(respond: (n: number, req: Request) => Response | Promise<Response>): Served {
  const requests: Seen[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      requests.push({ path: new URL(req.url).pathname, headers: req.headers });
      return respond(requests.length - 1, req);
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}/v1`;
  return {
    requests,
    model: (over = {}) => testModel({ base_url: base, ...over }),
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

/** A body that sends `events` with `gapMs` between them, then either ends or hangs until cancelled. */
function trickle(events: unknown[], gapMs: number, end: "close" | "hang" = "close") {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async start(c) {
      for (const e of events) {
        c.enqueue(enc.encode(sse(e)));
        await new Promise((r) => timer = setTimeout(r, gapMs));
      }
      if (end === "close") {
        c.enqueue(enc.encode("data: [DONE]\n\n"));
        c.close();
      }
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

const text = (parts: Array<{ type: string; text?: string }>) =>
  parts.map((p) => p.text ?? "").join("");

Deno.test("a stream that stalls mid-body is abandoned after the idle timeout and retried", async () => {
  const srv = serve((n) => trickle(HELLO.slice(0, n === 0 ? 1 : 3), 5, n === 0 ? "hang" : "close"));
  try {
    const p = createProvider(srv.model(), {
      idleTimeoutMs: 300,
      clock: fakeClock(),
      random: () => 0,
    });
    const { events, onEvent } = collector();
    const turn = await p.complete(userRequest(), onEvent);
    assert.equal(srv.requests.length, 2);
    assert.deepEqual(events.map((e) => e.type), ["text", "retry", "text", "text"]);
    assert.match((events[1] as { reason: string }).reason, /no data from the provider for 300 ms/);
    assert.equal(text(turn.parts), "Hello");
  } finally {
    await srv.close();
  }
});

Deno.test("a stream that hangs after finish_reason is finished, not retried", async () => {
  const srv = serve(() => trickle(HELLO, 5, "hang"));
  try {
    const p = createProvider(srv.model(), { idleTimeoutMs: 200, clock: fakeClock() });
    const { events, onEvent } = collector();
    const turn = await p.complete(userRequest(), onEvent);
    assert.equal(srv.requests.length, 1);
    assert.deepEqual(events.map((e) => e.type), ["text", "text"]);
    assert.equal(text(turn.parts), "Hello");
    assert.equal(turn.finish_reason, "stop");
  } finally {
    await srv.close();
  }
});

Deno.test("a server that never sends headers is abandoned after the idle timeout", async () => {
  let release = () => {};
  const hung = new Promise<Response>((r) => release = () => r(new Response("late")));
  const srv = serve((n) => n === 0 ? hung : trickle(HELLO, 1));
  try {
    const p = createProvider(srv.model(), {
      idleTimeoutMs: 200,
      clock: fakeClock(),
      random: () => 0,
    });
    const { events, onEvent } = collector();
    const turn = await p.complete(userRequest(), onEvent);
    assert.equal(events[0].type, "retry");
    assert.equal(text(turn.parts), "Hello");
  } finally {
    release();
    await srv.close();
  }
});

Deno.test("a slow but active stream is never killed", async () => {
  const many = Array.from(
    { length: 8 },
    (_, i) => ({ choices: [{ index: 0, delta: { content: `${i}` } }] }),
  );
  const srv = serve(() => trickle([...many, HELLO[2]], 150));
  try {
    // 8 gaps of 150 ms add up to twice the 600 ms idle timeout; each gap leaves 450 ms
    // to spare, which a loaded machine's timers need.
    const p = createProvider(srv.model(), { idleTimeoutMs: 600, clock: fakeClock() });
    const { events, onEvent } = collector();
    const turn = await p.complete(userRequest(), onEvent);
    assert.equal(srv.requests.length, 1);
    assert.ok(!events.some((e) => e.type === "retry"));
    assert.equal(text(turn.parts), "01234567");
  } finally {
    await srv.close();
  }
});

/**
 * A raw TCP server: connection n gets `replies[n]` written as is, then closed.
 * Deno.serve cannot drop a connection in the middle of a chunked body; this can.
 */
function rawServer(replies: string[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    for (const reply of replies) {
      const conn = await listener.accept();
      const buf = new Uint8Array(65536);
      await conn.read(buf); // the request; its content does not matter here
      await conn.write(enc.encode(reply));
      conn.close();
    }
  })();
  return {
    base: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`,
    close: async () => {
      listener.close();
      await done.catch(() => {});
    },
  };
}

function chunked(text: string): string {
  return `${enc.encode(text).length.toString(16)}\r\n${text}\r\n`;
}

Deno.test("a connection cut mid-body is retried", async () => {
  const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n";
  const cut = head + "transfer-encoding: chunked\r\n\r\n" + chunked(sse(HELLO[0])) +
    chunked('data: {"cho');
  const body = sse(...HELLO, "[DONE]");
  const full = head +
    `content-length: ${enc.encode(body).length}\r\nconnection: close\r\n\r\n${body}`;
  const srv = rawServer([cut, full]);
  try {
    const p = createProvider(testModel({ base_url: srv.base }), {
      clock: fakeClock(),
      random: () => 0,
    });
    const { events, onEvent } = collector();
    const turn = await p.complete(userRequest(), onEvent);
    assert.deepEqual(events.map((e) => e.type), ["text", "retry", "text", "text"]);
    assert.match((events[1] as { reason: string }).reason, /cut/);
    assert.equal(text(turn.parts), "Hello");
  } finally {
    await srv.close();
  }
});

Deno.test("abort mid-stream stops at once with an AbortError", async () => {
  const srv = serve(() => trickle([HELLO[0], HELLO[1]], 120_000, "hang"));
  try {
    const p = createProvider(srv.model(), { idleTimeoutMs: 60_000 });
    const ac = new AbortController();
    const started = Date.now();
    const err = await p.complete(userRequest("x", [], ac.signal), (e) => {
      if (e.type === "text") ac.abort();
    }).catch((e) => e);
    assert.equal(err.name, "AbortError");
    // The server's next byte is two minutes away: anything well short of that did not wait.
    assert.ok(Date.now() - started < 30_000, "did not wait for the server");
    assert.equal(srv.requests.length, 1);
  } finally {
    await srv.close();
  }
});

Deno.test("the request carries the key, extra headers and the chat-completions path", async () => {
  const srv = serve(() => trickle(HELLO, 1));
  try {
    await createProvider(srv.model({ extra_headers: { "X-Team": "infra" } })).complete(
      userRequest(),
      () => {},
    );
    const keyless = srv.model({ api_key: undefined });
    await createProvider(keyless).complete(userRequest(), () => {});
    const [withKey, without] = srv.requests;
    assert.equal(withKey.path, "/v1/chat/completions");
    assert.equal(withKey.headers.get("authorization"), "Bearer sk-test-secret-1234");
    assert.equal(withKey.headers.get("x-team"), "infra");
    assert.equal(without.headers.get("authorization"), null, "keyless servers get no bogus key");
  } finally {
    await srv.close();
  }
});
