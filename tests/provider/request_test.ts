/**
 * Request shaping: the chat-completions body built from mopac messages, the
 * catalog facts and the config, checked on the body itself and on the wire.
 */
import assert from "node:assert/strict";
import { buildChatBody } from "../../src/provider/request.ts";
import { createProvider } from "../../src/provider/provider.ts";
import type { ChatRequest } from "../../src/provider/types.ts";
import type { Message, Part, ToolSpec } from "../../src/domain/message.ts";
import { ok, scriptedFetch, sse, testModel, userRequest, WEATHER_TOOL } from "./helpers.ts";

const T = 1_700_000_000_000;
const msg = (id: string, role: Message["role"], parts: Part[]): Message => ({
  id,
  role,
  parts,
  created_at: T,
  updated_at: T,
});
const tool = (name: string): ToolSpec => ({
  name,
  description: name,
  parameters: { type: "object" },
});

Deno.test("defaults: streaming with usage, max_tokens, no sampling options, no tools", () => {
  const body = buildChatBody(testModel(), userRequest("hi"));
  assert.deepEqual(body, {
    model: "test-model",
    messages: [{ role: "system", content: "You are a test." }, { role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 4096,
  });
});

Deno.test("catalog and config options land where they belong", () => {
  const body = buildChatBody(
    testModel({
      use_max_completion_tokens: true,
      reasoning_effort: "high",
      temperature: 0,
      top_p: 0.9,
      supports_parallel_tool_calls: true,
      system_prompt_prefix: "PREFIX",
      extra_body: {
        max_completion_tokens: 99,
        metadata: { team: "a" },
        model: "other",
        stream: false,
      },
    }),
    userRequest("hi", [tool("zeta"), WEATHER_TOOL, tool("alpha")]),
  );
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.max_completion_tokens, 99, "extra_body wins over catalog values");
  assert.deepEqual(body.metadata, { team: "a" });
  assert.equal(body.model, "test-model", "extra_body cannot change the model");
  assert.equal(body.stream, true, "nor turn streaming off");
  assert.equal(body.reasoning_effort, "high");
  assert.equal(body.temperature, 0, "a zero temperature is still sent");
  assert.equal(body.top_p, 0.9);
  assert.equal(body.parallel_tool_calls, true);
  const tools = body.tools as Array<{ type: string; function: { name: string } }>;
  assert.deepEqual(tools.map((t) => t.function.name), ["alpha", "weather", "zeta"]);
  assert.deepEqual(tools[1], {
    type: "function",
    function: {
      name: "weather",
      description: WEATHER_TOOL.description,
      parameters: WEATHER_TOOL.parameters,
    },
  });
  assert.deepEqual(body.messages.slice(0, 2), [
    { role: "system", content: "PREFIX" },
    { role: "system", content: "You are a test." },
  ]);
  const noTools = buildChatBody(
    testModel({ supports_parallel_tool_calls: true }),
    userRequest("hi"),
  );
  assert.equal(noTools.parallel_tool_calls, undefined, "only with tools");
});

function conversation(): ChatRequest {
  return {
    system: "sys",
    tools: [],
    messages: [
      msg("u1", "user", [{ type: "text", text: "look" }, {
        type: "image",
        mime_type: "image/png",
        data: "AAAA",
      }]),
      msg("a1", "assistant", [
        {
          type: "reasoning",
          text: "old thought",
          details: [{ type: "reasoning.text", text: "old" }],
        },
        { type: "text", text: "ok" },
      ]),
      msg("u2", "user", [{ type: "text", text: "now list" }]),
      msg("a2", "assistant", [
        {
          type: "reasoning",
          text: "new thought",
          details: [{ type: "reasoning.text", text: "new" }],
        },
        { type: "tool_call", id: "c1", name: "ls", input: '{"path":"."}' },
        { type: "tool_call", id: "c2", name: "shot", input: "" },
      ]),
      msg("t1", "tool", [
        { type: "tool_result", tool_call_id: "c1", name: "ls", content: "a.ts", is_error: false },
        {
          type: "tool_result",
          tool_call_id: "c2",
          name: "shot",
          content: "",
          is_error: false,
          images: [{ type: "image", mime_type: "image/jpeg", data: "BBBB" }],
        },
      ]),
      msg("a3", "assistant", []),
      msg("a4", "assistant", [{ type: "finish", reason: "cancelled", at: T }]),
    ],
  };
}

Deno.test("messages: tool calls, tool results, images, empty assistant messages", () => {
  const body = buildChatBody(testModel(), conversation());
  assert.deepEqual(body.messages, [
    { role: "system", content: "sys" },
    {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
    { role: "assistant", content: "ok" },
    { role: "user", content: "now list" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } },
        { id: "c2", type: "function", function: { name: "shot", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: "a.ts" },
    { role: "tool", tool_call_id: "c2", content: "(no output)" },
    // Tool messages cannot carry images: they follow as a user message.
    {
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB" } }],
    },
  ]);
});

Deno.test("images are replaced by a note for models that take none", () => {
  const body = buildChatBody(testModel({ supports_attachments: false }), conversation());
  assert.equal(
    body.messages[1].content,
    "look\n[image omitted: this model does not accept images]",
  );
  assert.equal(body.messages.at(-1)?.content, "[image omitted: this model does not accept images]");
});

Deno.test("reasoning goes back only where expected, and only in the current tool loop", () => {
  const assistants = (over: Parameters<typeof testModel>[0]) =>
    buildChatBody(testModel(over), conversation()).messages.filter((m) => m.role === "assistant");
  const plain = assistants({});
  assert.ok(plain.every((m) => !("reasoning_content" in m) && !("reasoning_details" in m)));

  const router = assistants({
    provider_id: "openrouter",
    base_url: "https://openrouter.ai/api/v1",
  });
  assert.equal(router[0].reasoning_details, undefined, "before the last user message: dropped");
  assert.deepEqual(router[1].reasoning_details, [{ type: "reasoning.text", text: "new" }]);
  assert.equal(router[1].reasoning_content, undefined);

  const deepseek = assistants({ provider_id: "ds", base_url: "https://api.deepseek.com/v1" });
  assert.equal(deepseek[0].reasoning_content, undefined);
  assert.equal(deepseek[1].reasoning_content, "new thought");
});

Deno.test("prompt-caching markers: last system, last tool, last two messages with content", () => {
  const req = conversation();
  req.tools = [tool("b"), tool("a")];
  const body = buildChatBody(testModel({ cache_control: true }), req);
  const mark = { type: "ephemeral" };
  assert.deepEqual(body.messages[0].content, [{ type: "text", text: "sys", cache_control: mark }]);
  const tools = body.tools as Array<Record<string, unknown>>;
  assert.equal(tools[0].cache_control, undefined);
  assert.deepEqual(tools[1].cache_control, mark, "the last tool after sorting");
  const last = body.messages.at(-1)?.content as Array<Record<string, unknown>>;
  assert.deepEqual(last[0].cache_control, mark);
  assert.deepEqual(body.messages.at(-2)?.content, [{
    type: "text",
    text: "(no output)",
    cache_control: mark,
  }]);
  const count = JSON.stringify(body).split('"cache_control"').length - 1;
  assert.equal(count, 4, "Anthropic allows four breakpoints");
  assert.ok(!JSON.stringify(buildChatBody(testModel(), req)).includes("cache_control"));
});

Deno.test("what reaches the server is the built body", async () => {
  const served = scriptedFetch([
    ok(sse({ choices: [{ index: 0, delta: { content: "x" }, finish_reason: "stop" }] })),
  ]);
  const model = testModel({ extra_headers: { "X-Team": "infra" }, reasoning_effort: "low" });
  const req = userRequest("hi", [WEATHER_TOOL]);
  await createProvider(model, { fetch: served.fetch }).complete(req, () => {});
  assert.equal(served.calls.length, 1);
  assert.deepEqual(served.calls[0].body, JSON.parse(JSON.stringify(buildChatBody(model, req))));
  assert.equal(served.calls[0].url, "http://127.0.0.1:9/v1/chat/completions");
  assert.equal(served.calls[0].headers.get("x-team"), "infra");
});
