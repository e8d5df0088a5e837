import assert from "node:assert/strict";
import {
  type FakeOpenAI,
  scriptFault,
  scriptText,
  scriptToolCall,
  startFakeOpenAI,
  withFakeOpenAI,
} from "./fake_openai.ts";
import { chatBody, openaiClient, postChat, sseChunks, sseData } from "./fake_openai.ts";

const streamBody = chatBody({ stream: true });

/** Streams one request through the openai SDK and reads every chunk. */
async function sdkDrain(fake: FakeOpenAI): Promise<void> {
  const stream = await openaiClient(fake).chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  for await (const _ of stream) { /* drain */ }
}
// deno-lint-ignore no-explicit-any
const contentOf = (chunks: any[]) =>
  chunks.map((c) => c.choices?.[0]?.delta?.content ?? "").join("");
// deno-lint-ignore no-explicit-any
const finishes = (chunks: any[]) => chunks.filter((c) => c.choices?.[0]?.finish_reason);

Deno.test("status faults answer with their status, headers and an OpenAI error body", async () => {
  const turns = [
    scriptFault({ status: 429, headers: { "retry-after": "1" } }),
    scriptFault({ status: 500 }),
    scriptFault({ status: 401 }),
    scriptFault({ status: 503, body: "upstream down" }),
    scriptFault({ status: 429, headers: { "retry-after-ms": "250" } }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const r429 = await postChat(fake, streamBody);
    assert.equal(r429.status, 429);
    assert.equal(r429.headers.get("retry-after"), "1");
    assert.equal((await r429.json()).error.code, "rate_limit_exceeded");
    const r500 = await postChat(fake, streamBody);
    assert.equal(r500.status, 500);
    assert.equal((await r500.json()).error.type, "server_error");
    const r401 = await postChat(fake, streamBody);
    assert.equal(r401.status, 401);
    assert.equal((await r401.json()).error.code, "invalid_api_key");
    const r503 = await postChat(fake, streamBody);
    assert.deepEqual([r503.status, await r503.text()], [503, "upstream down"]);
    await assert.rejects(
      openaiClient(fake).chat.completions.create(streamBody as never),
      (e: Error & { status?: number; headers?: Headers }) =>
        e.status === 429 && e.headers?.get("retry-after-ms") === "250",
    );
    // Faults are scripted answers, not refusals of the request.
    assert.deepEqual(fake.rejected, []);
    assert.deepEqual(fake.requests.map((r) => r.turn), [0, 1, 2, 3, 4]);
  });
});

Deno.test("cutAfterChunks ends the stream with no finish_reason and no [DONE]", async () => {
  const turns = [
    scriptText("abcdefgh", { chunkSize: 2, fault: { cutAfterChunks: 3 } }),
    scriptToolCall("view", { file_path: "/tmp/x" }, "c1", {
      chunkSize: 4,
      fault: { cutAfterChunks: 4 },
    }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const raw = await (await postChat(fake, streamBody)).text();
    assert.equal(sseData(raw).length, 3);
    assert.ok(!raw.includes("[DONE]"));
    assert.equal(contentOf(sseChunks(raw)), "abcd");
    assert.deepEqual(finishes(sseChunks(raw)), []);
    // A cut in the middle of the arguments, as the SDK sees it.
    await assert.rejects(
      openaiClient(fake).chat.completions.stream(streamBody as never).finalChatCompletion(),
      /missing finish_reason/,
    );
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("cutAfterChunks with reset makes the client see a connection error", async () => {
  const turns = [
    scriptText("abcdefgh", { chunkSize: 2, fault: { cutAfterChunks: 2, reset: true } }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const res = await postChat(fake, streamBody);
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
  });
});

Deno.test(
  "a stall keeps the connection silent and open; close() ends it",
  { timeout: 20_000 },
  async () => {
    const fake = await startFakeOpenAI({
      turns: [
        scriptText("abcdef", { chunkSize: 2, fault: { stallAfterChunks: 2, stallMs: 600_000 } }),
      ],
    });
    const res = await postChat(fake, streamBody);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let got = "";
    while (sseData(got).length < 2) got += (await reader.read()).value ?? "";
    const pending = reader.read();
    const raced = await Promise.race([pending, new Promise((r) => setTimeout(r, 100, "silent"))]);
    assert.equal(raced, "silent");
    await fake.close();
    for (let r = await pending; !r.done; r = await reader.read()) got += r.value;
    assert.equal(sseData(got).length, 2);
    assert.ok(!got.includes("[DONE]"));
  },
);

Deno.test("a client that gives up on a stalled stream frees it", { timeout: 20_000 }, async () => {
  const stall = { stallAfterChunks: 1, stallMs: 600_000 };
  await withFakeOpenAI(
    { turns: [scriptText("abcdef", { fault: stall }), scriptText("ok")] },
    async (fake) => {
      const ac = new AbortController();
      const res = await fetch(`${fake.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify(streamBody),
        signal: ac.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      ac.abort();
      await assert.rejects(reader.read());
      // The retry a client would make next is served normally.
      assert.equal(contentOf(sseChunks(await (await postChat(fake, streamBody)).text())), "ok");
    },
  );
});

Deno.test("a short stall only delays the stream, which then completes", async () => {
  const turns = [
    scriptText("abcdef", { chunkSize: 2, delayMs: 2, fault: { stallAfterChunks: 1, stallMs: 30 } }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const raw = await (await postChat(fake, streamBody)).text();
    assert.equal(contentOf(sseChunks(raw)), "abcdef");
    assert.equal(sseData(raw).at(-1), "[DONE]");
  });
});

Deno.test("malformedAfterChunks puts one invalid JSON line in the stream", async () => {
  const fault = { malformedAfterChunks: 2 };
  const turns = [scriptText("abcdef", { chunkSize: 2, fault }), scriptText("x", { fault })];
  await withFakeOpenAI({ turns }, async (fake) => {
    const data = sseData(await (await postChat(fake, streamBody)).text());
    assert.throws(() => JSON.parse(data[2]), SyntaxError);
    assert.equal(data.filter((d) => d !== "[DONE]" && !d.endsWith("}")).length, 1);
    assert.equal(data.at(-1), "[DONE]");
    await assert.rejects(sdkDrain(fake), /malformed server-sent event JSON/);
  });
});

Deno.test("errorChunkAfter sends an in-band error in a 200 stream", async () => {
  const error = { code: 400, message: "Token limit reached" };
  const turns = [
    scriptText("abcdef", { chunkSize: 2, fault: { errorChunkAfter: 2, error } }),
    scriptText("abcdef", { fault: { errorChunkAfter: 1 } }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const res = await postChat(fake, streamBody);
    assert.equal(res.status, 200);
    const data = sseData(await res.text());
    assert.deepEqual(JSON.parse(data[2]), { error });
    assert.deepEqual(data.slice(3), ["[DONE]"]);
    await assert.rejects(sdkDrain(fake), /The server had an error while processing your request/);
  });
});

Deno.test("a stream fault on a non-streaming request is a script error (500)", async () => {
  await withFakeOpenAI(
    { turns: [scriptText("x", { fault: { cutAfterChunks: 1 } })] },
    async (fake) => {
      const res = await postChat(fake, chatBody());
      assert.equal(res.status, 500);
      assert.match(
        (await res.json()).error.message,
        /fault 'cutAfterChunks' of turn 0 needs .*stream: true/,
      );
      assert.equal(fake.rejected[0].error.code, "script_error");
    },
  );
});

Deno.test("apiKey: a missing or wrong key gets 401 invalid_api_key, the right one passes", async () => {
  const fake = await startFakeOpenAI({ apiKey: "sk-right-key-123", turns: [scriptText("ok")] });
  try {
    const none = await postChat(fake, chatBody());
    assert.equal(none.status, 401);
    assert.match((await none.json()).error.message, /^You didn't provide an API key/);
    await assert.rejects(
      openaiClient(fake, "sk-wrong-key-999").chat.completions.create(chatBody() as never),
      (e: Error & { status?: number; code?: string }) =>
        e.status === 401 && e.code === "invalid_api_key" &&
        /^401 Incorrect API key provided: sk-\*+-999\./.test(e.message),
    );
    const ok = await openaiClient(fake, "sk-right-key-123").chat.completions.create(
      chatBody() as never,
    );
    assert.equal(ok.choices[0].message.content, "ok");
    assert.deepEqual(fake.rejected.map((r) => r.status), [401, 401]);
  } finally {
    await fake.close();
  }
});
