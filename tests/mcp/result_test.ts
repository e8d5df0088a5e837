/** Result mapping, the headless elicitation answer and the config helpers: pure functions. */
import assert from "node:assert/strict";
import { jsonWithoutBase64, mapCallResult } from "../../src/mcp/result.ts";
import { answerElicitation } from "../../src/mcp/client_factory.ts";
import {
  configProblem,
  maxTotalMs,
  startTimeoutMs,
  timeoutMs,
  toolAllowed,
  transportKind,
} from "../../src/mcp/config.ts";

const PNG = "iVBORw0KGgo=";

Deno.test("text blocks are joined; isError becomes a tool error", () => {
  const out = mapCallResult({
    content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
    isError: true,
  }, false);
  assert.deepEqual(out, { content: "a\nb", is_error: true });
});

Deno.test("images: an image part with attachments, a placeholder without", () => {
  const result = { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
  const yes = mapCallResult(result, true);
  assert.deepEqual(yes.images, [{ type: "image", mime_type: "image/png", data: PNG }]);
  assert.equal(yes.content, "[image attached: image/png, 8 B]");
  assert.deepEqual(mapCallResult(result, false), {
    content: "[image omitted: image/png, 8 B; not viewable here]",
  });
});

Deno.test("audio gets a placeholder; resources and links become text", () => {
  const out = mapCallResult({
    content: [
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "test://r/1", mimeType: "text/plain", text: "hello" } },
      {
        type: "resource",
        resource: { uri: "test://r/2", mimeType: "application/octet-stream", blob: "AAAA" },
      },
      { type: "resource", resource: { uri: "test://r/3", mimeType: "image/png", blob: PNG } },
      {
        type: "resource_link",
        uri: "file:///x.md",
        name: "x.md",
        mimeType: "text/markdown",
        description: "notes",
      },
      { type: "hologram" },
    ],
  }, false);
  assert.equal(
    out.content,
    [
      "[audio omitted: audio/wav, 3 B]",
      "[resource test://r/1 (text/plain)]\nhello",
      "[resource test://r/2: binary application/octet-stream, 3 B]",
      "[image omitted: test://r/3 image/png, 8 B; not viewable here]",
      "[resource link: x.md <file:///x.md> (text/markdown) notes]",
      '[unsupported content block of type "hologram"]',
    ].join("\n"),
  );
  assert.equal(out.is_error, undefined);
});

Deno.test("structuredContent is JSON text only when there is no text", () => {
  assert.deepEqual(mapCallResult({ content: [], structuredContent: { n: 1 } }, false), {
    content: '{\n  "n": 1\n}',
  });
  assert.deepEqual(
    mapCallResult(
      { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } },
      false,
    ),
    {
      content: '{"n":1}',
    },
  );
  assert.deepEqual(mapCallResult({ toolResult: { legacy: true } }, false), {
    content: '{\n  "legacy": true\n}',
  });
});

Deno.test("structuredContent is left out when the content has other blocks; base64 in JSON is a placeholder", () => {
  const data = btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0)) +
    "A".repeat(400);
  const image = { type: "image", data, mimeType: "image/png" };
  const out = mapCallResult({ content: [image], structuredContent: { content: [image] } }, false);
  assert.equal(out.content, "[image omitted: image/png, 309 B; not viewable here]");

  const only = mapCallResult({ content: [], structuredContent: { file: data, name: "x" } }, false);
  assert.equal(only.content, '{\n  "file": "[base64 data omitted: 309 B]",\n  "name": "x"\n}');
  // Long text that only looks like base64 letters is kept (it has spaces).
  const prose = "word ".repeat(80).trim();
  assert.equal(jsonWithoutBase64({ prose }), JSON.stringify({ prose }, null, 2));
});

Deno.test("elicitation: accept with defaults when every required field has one, else decline", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", default: "John" },
      age: { type: "integer", default: 30 },
      note: { type: "string" },
    },
    required: ["name"],
  };
  assert.deepEqual(answerElicitation(schema), {
    action: "accept",
    content: { name: "John", age: 30 },
  });
  assert.deepEqual(answerElicitation({ ...schema, required: ["name", "note"] }), {
    action: "decline",
  });
  assert.deepEqual(answerElicitation({ type: "object", properties: {} }), {
    action: "accept",
    content: {},
  });
  assert.deepEqual(answerElicitation(undefined), { action: "accept", content: {} });
});

Deno.test("config: transport kind, timeouts, filters, problems", () => {
  assert.equal(transportKind({ command: "x" }), "stdio");
  assert.equal(transportKind({ url: "http://h/mcp" }), "http");
  assert.equal(transportKind({ type: "sse", url: "http://h/sse" }), "sse");
  assert.equal(timeoutMs({}), 10_000);
  assert.equal(timeoutMs({ timeout: 2.5 }), 2_500);
  assert.equal(timeoutMs({ timeout: -1 }), 10_000);
  assert.ok(maxTotalMs({ timeout: 1 }) >= 5 * 60_000);
  // Starting has its own deadline: 30 s, or `timeout` when that is longer (crush's meaning).
  assert.equal(startTimeoutMs({}), 30_000);
  assert.equal(startTimeoutMs({ timeout: 1 }), 30_000);
  assert.equal(startTimeoutMs({ timeout: 90 }), 90_000);
  assert.equal(startTimeoutMs({ timeout: 90, start_timeout: 5 }), 5_000);
  assert.equal(startTimeoutMs({ start_timeout: 0 }), 30_000);
  assert.equal(toolAllowed({ enabled_tools: ["a"] }, "b"), false);
  assert.equal(toolAllowed({ enabled_tools: ["a"], disabled_tools: ["a"] }, "a"), false);
  assert.equal(toolAllowed({ enabled_tools: [] }, "b"), true);
  assert.equal(configProblem({ command: " " }), "stdio server has no `command`");
  assert.equal(configProblem({ type: "sse" }), "sse server has no `url`");
  assert.equal(configProblem({ type: "http", url: "ftp://h" }), 'url must be http(s), got "ftp:"');
  assert.equal(configProblem({ type: "http", url: "not a url" }), 'invalid url "not a url"');
  assert.equal(configProblem({ type: "http", url: "https://h/mcp" }), undefined);
});
