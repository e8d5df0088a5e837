import assert from "node:assert/strict";
import { scriptFault, scriptText, scriptToolCall, withFakeOpenAI } from "./fake_openai.ts";
import { chatBody, openaiClient, postChat, sseChunks, sseData } from "./fake_openai.ts";
import { loadFixture } from "./provider_fixtures.ts";

// deno-lint-ignore no-explicit-any
const delta = (c: any) => c.choices[0]?.delta ?? {};

Deno.test("a scripted text turn streams as role, content pieces, finish, usage, [DONE]", async () => {
  const text = "Olá, wörld! 🎉 streamed in pieces";
  await withFakeOpenAI({ turns: [scriptText(text, { chunkSize: 5 })] }, async (fake) => {
    const body = chatBody({ stream: true, stream_options: { include_usage: true } });
    const res = await postChat(fake, body, { authorization: "Bearer k" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
    const raw = await res.text();
    const data = sseData(raw);
    const chunks = sseChunks(raw);
    assert.equal(data.at(-1), "[DONE]");
    assert.equal(delta(chunks[0]).role, "assistant");
    const pieces = chunks.map((c) => delta(c).content).filter((c) => c);
    assert.equal(pieces.join(""), text);
    assert.equal(pieces.length, Math.ceil([...text].length / 5));
    // deno-lint-ignore no-explicit-any
    const [finish, usage] = chunks.slice(-2) as any[];
    assert.equal(finish.choices[0].finish_reason, "stop");
    assert.deepEqual(usage.choices, []);
    assert.equal(
      usage.usage.total_tokens,
      usage.usage.prompt_tokens + usage.usage.completion_tokens,
    );
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.equal(fake.requests.length, 1);
    assert.deepEqual(fake.requests[0].body, body);
    assert.equal(fake.requests[0].headers.authorization, "Bearer k");
    assert.deepEqual(fake.requests[0].verdict, { ok: true });
    assert.equal(fake.requests[0].turn, 0);
  });
});

Deno.test("without include_usage there is no usage chunk; usage:null sends none at all", async () => {
  await withFakeOpenAI(
    { turns: [scriptText("a"), scriptText("b", { usage: null })] },
    async (fake) => {
      const first = sseChunks(await (await postChat(fake, chatBody({ stream: true }))).text());
      assert.ok(first.every((c) => !("usage" in c)));
      const body = chatBody({ stream: true, stream_options: { include_usage: true } });
      const second = sseChunks(await (await postChat(fake, body)).text());
      assert.ok(second.every((c) => c.usage === null));
    },
  );
});

Deno.test("the openai SDK assembles a streamed tool call, then gets a non-streamed answer", async () => {
  const args = { command: "echo 'hi — ü' > a.txt", timeout: 5 };
  const turns = [
    scriptToolCall("bash", args, "call_1", {
      text: "Running it.",
      reasoning: "think",
      chunkSize: 3,
    }),
    scriptText("done", { usage: { prompt_tokens: 100, completion_tokens: 7, cached_tokens: 40 } }),
  ];
  await withFakeOpenAI({ turns }, async (fake) => {
    const client = openaiClient(fake);
    const tools = [{
      type: "function" as const,
      function: { name: "bash", parameters: { type: "object", properties: {} } },
    }];
    const stream = client.chat.completions.stream({
      model: "fake-model",
      messages: [{ role: "user", content: "write a.txt" }],
      tools,
      stream_options: { include_usage: true },
    });
    let reasoning = "";
    // deno-lint-ignore no-explicit-any
    stream.on("chunk", (c) => reasoning += (c.choices[0]?.delta as any)?.reasoning_content ?? "");
    const done = await stream.finalChatCompletion();
    const msg = done.choices[0].message;
    assert.equal(done.choices[0].finish_reason, "tool_calls");
    assert.equal(msg.content, "Running it.");
    assert.equal(reasoning, "think");
    assert.equal(msg.tool_calls?.length, 1);
    const call = msg.tool_calls![0];
    assert.ok(call.type === "function");
    assert.equal(call.id, "call_1");
    assert.equal(call.function.name, "bash");
    assert.deepEqual(JSON.parse(call.function.arguments), args);
    assert.ok(done.usage && done.usage.completion_tokens > 0);

    const answer = await client.chat.completions.create({
      model: "fake-model",
      messages: [
        { role: "user", content: "write a.txt" },
        { role: "assistant", content: msg.content, tool_calls: msg.tool_calls },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
      ],
      tools,
    });
    assert.equal(answer.object, "chat.completion");
    assert.equal(answer.choices[0].message.content, "done");
    assert.equal(answer.choices[0].finish_reason, "stop");
    assert.equal(answer.usage?.prompt_tokens_details?.cached_tokens, 40);
    assert.equal(answer.usage?.total_tokens, 107);
    assert.deepEqual(fake.rejected, []);
    assert.equal(fake.turnRequests()[1].messages.length, 3);
  });
});

Deno.test("a turns function sees the parsed request and its turn index", async () => {
  const seen: string[] = [];
  const turns = (req: { messages: { content?: unknown }[] }, i: number) => {
    seen.push(`${i}:${req.messages[0].content}`);
    return i < 2 ? scriptText(`answer ${i}`) : undefined;
  };
  await withFakeOpenAI({ turns }, async (fake) => {
    const client = openaiClient(fake);
    for (const q of ["a", "b"]) {
      const r = await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: q }],
      });
      assert.match(r.choices[0].message.content ?? "", /^answer \d$/);
    }
    const res = await postChat(fake, chatBody());
    assert.equal(res.status, 500);
    assert.match((await res.json()).error.message, /no scripted turn for request #2/);
    assert.deepEqual(seen, ["0:a", "1:b", "2:hi"]);
    assert.equal(fake.rejected[0].error.code, "script_exhausted");
  });
});

Deno.test("a script that runs out answers 500 and the SDK sees a failure", async () => {
  await withFakeOpenAI({ turns: [] }, async (fake) => {
    const client = openaiClient(fake);
    await assert.rejects(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }),
      (e: Error & { status?: number }) => e.status === 500 && /no scripted turn/.test(e.message),
    );
    assert.equal(fake.rejected.length, 1);
    assert.equal(fake.requests[0].verdict.ok, false);
  });
});

for (const [name, split] of [["openai/gpt-4o-tool-call.sse", 7], ["openai/gpt-4o-text.sse", 1]]) {
  Deno.test(`fixture replay of ${name} is byte-exact (whole and split every ${split})`, async () => {
    const rec = loadFixture(name as string);
    const turns = [
      scriptFault({ fixture: name as string }),
      scriptFault({ fixture: name as string, splitEvery: split as number }),
    ];
    await withFakeOpenAI({ turns }, async (fake) => {
      for (let i = 0; i < 2; i++) {
        const res = await postChat(fake, chatBody({ stream: true }));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), rec.headers["content-type"]);
        assert.deepEqual(
          new Uint8Array(await res.arrayBuffer()),
          new TextEncoder().encode(rec.body),
        );
      }
    });
  });
}

Deno.test("the SDK assembles the recorded gpt-4o tool call split at awkward offsets", async () => {
  const turns = [scriptFault({ fixture: "openai/gpt-4o-tool-call.sse", splitEvery: 5 })];
  await withFakeOpenAI({ turns }, async (fake) => {
    const done = await openaiClient(fake).chat.completions.stream({
      model: "gpt-4o",
      messages: [{ role: "user", content: "weather?" }],
    }).finalChatCompletion();
    const call = done.choices[0].message.tool_calls![0];
    assert.ok(call.type === "function");
    assert.equal(call.function.name, "weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { location: "Florence, Italy" });
  });
});

Deno.test("an error fixture keeps its status, headers and body", async () => {
  const name = "openai/error-401-invalid-api-key-stream-request.json";
  const rec = loadFixture(name);
  await withFakeOpenAI({ turns: [scriptFault({ fixture: name })] }, async (fake) => {
    const res = await postChat(fake, chatBody({ stream: true }));
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("x-request-id"), rec.headers["x-request-id"]);
    assert.equal(await res.text(), rec.body);
  });
});

Deno.test("GET /v1/models lists models; unknown paths get 404; servers are independent", async () => {
  await withFakeOpenAI({ models: ["a", "b"] }, async (one) => {
    await withFakeOpenAI({}, async (two) => {
      assert.notEqual(one.port, two.port);
      const list = await openaiClient(one).models.list();
      assert.deepEqual(list.data.map((m) => m.id), ["a", "b"]);
      const res = await fetch(`${two.url}/nope`, { method: "POST", body: "{}" });
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.message, "Invalid URL (POST /v1/nope)");
      assert.equal(one.requests.length, 1);
      assert.equal(two.requests.length, 1);
    });
  });
});
