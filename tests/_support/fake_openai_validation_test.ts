import assert from "node:assert/strict";
import { scriptText, startFakeOpenAI } from "./fake_openai.ts";
import { chatBody, openaiClient, postChat } from "./fake_openai.ts";

const user = { role: "user", content: "hi" };
const call = (id: string, args = "{}") => ({
  id,
  type: "function",
  function: { name: "view", arguments: args },
});
const asst = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
const fn = (name: string, parameters: unknown = { type: "object", properties: {} }) => ({
  type: "function",
  function: { name, parameters },
});
const msgs = (...messages: unknown[]) => chatBody({ messages });

const UNANSWERED = "An assistant message with 'tool_calls' must be followed by tool messages " +
  "responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
const NO_PRECEDING = "Invalid parameter: messages with role 'tool' must be a response to a " +
  "preceeding message with 'tool_calls'.";

/** [case, body (a string is sent raw), expected message (exact or pattern), expected param] */
const CASES: [string, unknown, string | RegExp, string | null][] = [
  ["body not JSON", "{nope", /^We could not parse the JSON body of your request/, null],
  ["model missing", { messages: [user] }, "you must provide a model parameter", null],
  ["messages missing", { model: "m" }, "Missing required parameter: 'messages'.", "messages"],
  ["messages empty", msgs(), /^Invalid 'messages': empty array\./, "messages"],
  [
    "messages not an array",
    chatBody({ messages: "hi" }),
    "Invalid type for 'messages': expected an array of objects, but got a string instead.",
    "messages",
  ],
  [
    "invalid role",
    msgs({ role: "bot", content: "x" }),
    "Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.",
    "messages[0].role",
  ],
  [
    "user without content",
    msgs({ role: "user" }),
    "Missing required parameter: 'messages[0].content'.",
    "messages[0].content",
  ],
  [
    "system with null content",
    msgs({ role: "system", content: null }, user),
    "Missing required parameter: 'messages[0].content'.",
    "messages[0].content",
  ],
  [
    "tool without tool_call_id",
    msgs(user, asst("c1"), { role: "tool", content: "ok" }),
    "Missing required parameter: 'messages[2].tool_call_id'.",
    "messages[2].tool_call_id",
  ],
  [
    "tool without content",
    msgs(user, asst("c1"), { role: "tool", tool_call_id: "c1" }),
    "Missing required parameter: 'messages[2].content'.",
    "messages[2].content",
  ],
  [
    "assistant with neither content nor tool_calls",
    msgs(user, { role: "assistant" }),
    "Missing required parameter: 'messages[1].content'.",
    "messages[1].content",
  ],
  [
    "assistant with empty tool_calls",
    msgs(user, { role: "assistant", content: "x", tool_calls: [] }),
    /^Invalid 'messages\[1\]\.tool_calls': empty array\./,
    "messages[1].tool_calls",
  ],
  [
    "tool calls never answered",
    msgs(user, asst("c1", "c2")),
    UNANSWERED + "c1, c2",
    "messages.[1].role",
  ],
  [
    "one call answered, then a user message",
    msgs(user, asst("c1", "c2"), tool("c2"), user),
    UNANSWERED + "c1",
    "messages.[1].role",
  ],
  ["tool with no preceding tool_calls", msgs(user, tool("c1")), NO_PRECEDING, "messages.[1].role"],
  [
    "tool answering an unknown id",
    msgs(user, asst("c1"), tool("c1"), tool("c9")),
    NO_PRECEDING,
    "messages.[3].role",
  ],
  [
    "tool answering a call of an earlier turn",
    msgs(user, asst("c1"), tool("c1"), { role: "assistant", content: "x" }, tool("c1")),
    NO_PRECEDING,
    "messages.[4].role",
  ],
  [
    "tool call arguments not JSON",
    msgs(user, { role: "assistant", tool_calls: [call("c1", '{"a":')] }, tool("c1")),
    /^Invalid 'messages\[1\]\.tool_calls\[0\]\.function\.arguments': string is not valid JSON/,
    "messages[1].tool_calls[0].function.arguments",
  ],
  [
    "tool call arguments empty",
    msgs(user, { role: "assistant", tool_calls: [call("c1", "")] }, tool("c1")),
    /string is not valid JSON/,
    "messages[1].tool_calls[0].function.arguments",
  ],
  [
    "tool call arguments an object",
    msgs(user, {
      role: "assistant",
      tool_calls: [{ id: "c1", type: "function", function: { name: "view", arguments: {} } }],
    }, tool("c1")),
    "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    "messages[1].tool_calls[0].function.arguments",
  ],
  [
    "tool type not function",
    chatBody({ tools: [{ type: "retrieval" }] }),
    "Invalid value: 'retrieval'. Supported values are: 'function'.",
    "tools[0].type",
  ],
  [
    "tool name with a space",
    chatBody({ tools: [fn("my tool")] }),
    "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
    "tools[0].function.name",
  ],
  [
    "tool name of 65 characters",
    chatBody({ tools: [fn("x".repeat(65))] }),
    /string too long\. Expected a string with maximum length 64, but got a string with length 65/,
    "tools[0].function.name",
  ],
  [
    "tool parameters not an object",
    chatBody({ tools: [fn("view", "{}")] }),
    "Invalid type for 'tools[0].function.parameters': expected an object, but got a string instead.",
    "tools[0].function.parameters",
  ],
  [
    "duplicate tool names",
    chatBody({ tools: [fn("view"), fn("bash"), fn("view")] }),
    /^Invalid 'tools': duplicate function name 'view'/,
    "tools",
  ],
  ["empty tools array", chatBody({ tools: [] }), /^Invalid 'tools': empty array\./, "tools"],
  [
    "tool_choice without tools",
    chatBody({ tool_choice: "auto" }),
    /'tool_choice' is only allowed when 'tools' are specified/,
    "tool_choice",
  ],
  [
    "stream_options without stream",
    chatBody({ stream_options: { include_usage: true } }),
    "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    "stream_options",
  ],
];

Deno.test("requests the real API refuses get 400 with OpenAI's error shape and text", async (t) => {
  const fake = await startFakeOpenAI({ turns: [scriptText("ok")] });
  try {
    for (const [name, body, message, param] of CASES) {
      await t.step(name, async () => {
        const before = fake.rejected.length;
        const res = await postChat(fake, body);
        assert.equal(res.status, 400);
        const { error } = await res.json();
        assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"]);
        assert.equal(error.type, "invalid_request_error");
        if (typeof message === "string") assert.equal(error.message, message);
        else assert.match(error.message, message);
        assert.equal(error.param, param);
        assert.deepEqual(fake.rejected.slice(before), [
          { index: fake.requests.length - 1, status: 400, error },
        ]);
      });
    }
    // None of the refused requests used up a turn: a valid conversation gets turn 0.
    const valid = msgs(
      { role: "developer", content: [{ type: "text", text: "be brief" }] },
      user,
      { role: "assistant", content: "Looking.", tool_calls: [call("c1"), call("c2", '{"p":1}')] },
      tool("c2"),
      tool("c1"),
      { role: "assistant", content: "Done." },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    );
    const res = await postChat(fake, { ...valid, tools: [fn("view")], tool_choice: "auto" });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).choices[0].message.content, "ok");
    assert.equal(fake.requests.at(-1)?.turn, 0);
    assert.equal(fake.rejected.length, CASES.length);
  } finally {
    await fake.close();
  }
});

Deno.test("the openai SDK surfaces a refused conversation as a 400 BadRequestError", async () => {
  const fake = await startFakeOpenAI({ turns: [scriptText("never")] });
  try {
    const messages = msgs(user, asst("call_x")).messages as never;
    await assert.rejects(
      openaiClient(fake).chat.completions.create({ model: "m", messages }),
      (e: Error & { status?: number; param?: string }) =>
        e.status === 400 && e.message.includes(UNANSWERED + "call_x") &&
        e.param === "messages.[1].role",
    );
  } finally {
    await fake.close();
  }
});

Deno.test("rejectUnknownParams refuses fields api.openai.com does not know", async () => {
  const fake = await startFakeOpenAI({ rejectUnknownParams: true, turns: [scriptText("ok")] });
  try {
    const res = await postChat(fake, chatBody({ cache_control: {} }));
    assert.equal(res.status, 400);
    assert.equal(
      (await res.json()).error.message,
      "Unrecognized request argument supplied: cache_control",
    );
    const ok = await postChat(fake, chatBody({ temperature: 0, max_completion_tokens: 9 }));
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).choices[0].message.content, "ok");
  } finally {
    await fake.close();
  }
});
