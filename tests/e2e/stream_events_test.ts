/**
 * What stream-json says about time and requests (issue: a pipeline reads exactly what
 * it needs): every event carries `ts`, a `request` event opens each model request,
 * `tool_result` says how long the call took. And what is no news stays off stderr: a
 * progress notification for a token nobody asked for, and a Streamable HTTP server
 * answering the optional GET stream with 404.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { startFixtureHttp } from "../_support/mcp_fixture_server.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("stream-json: ts on every event, a request event per model request, tool durations", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("bash", { command: "sleep 0.3; echo slept" }, "call_sleep", {
        text: "Sleeping first.",
      }),
      scriptText("Done sleeping."),
    ],
  });
  const before = Date.now();
  const r = await ws.run(["run", "-o", "stream-json", "sleep a little"]);
  const after = Date.now();
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const ev = events(r.stdout);

  // ts: whole milliseconds since the epoch, within the run, never going back.
  const stamps = ev.map((e) => e.ts as number);
  for (const ts of stamps) assert.ok(Number.isInteger(ts) && ts >= before && ts <= after, `${ts}`);
  assert.deepEqual(stamps, [...stamps].sort((a, b) => a - b), "ts never goes back");

  // Each model request opens with `request`, before the text it streams and its turn.
  assert.deepEqual(ev.map((e) => e.type).filter((t) => t !== "text"), [
    "init",
    "request",
    "turn",
    "tool_call",
    "tool_result",
    "request",
    "turn",
    "result",
  ]);
  const requests = ev.filter((e) => e.type === "request");
  assert.deepEqual(requests.map((e) => [e.n, e.model]), [[1, "fake/fake-model"], [
    2,
    "fake/fake-model",
  ]]);
  const firstText = ev.find((e) => e.type === "text")!;
  assert.equal(firstText.message_id, requests[0].message_id);
  const turns = ev.filter((e) => e.type === "turn");
  assert.deepEqual(turns.map((t) => t.n), requests.map((q) => q.n));

  // The tool took at least as long as the command slept.
  const result = ev.find((e) => e.type === "tool_result")!;
  assert.equal(result.id, "call_sleep");
  assert.match(String(result.output), /slept/);
  assert.ok(Number.isInteger(result.duration_ms), JSON.stringify(result));
  assert.ok((result.duration_ms as number) >= 300, `duration_ms ${result.duration_ms}`);
});

Deno.test("stream-json: an MCP server's stray progress and a 404 on its GET stream are not printed", async () => {
  await using http = await startFixtureHttp("http", { getStatus: 404 });
  await using ws = await workspace({
    turns: [
      scriptToolCall("mcp_web_stray_progress", {}, "call_stray"),
      scriptText("The server answered."),
    ],
  }, { mcp: { web: { type: "http", url: http.url, enabled_tools: ["stray_progress"] } } });
  ws.perms.net!.push(new URL(http.url).host);
  const r = await ws.run(["run", "-o", "stream-json", "call the server"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  assert.deepEqual(ev[0].mcp_servers, [{ name: "web", status: "connected", tools: 1 }]);
  const result = ev.find((e) => e.type === "tool_result")!;
  assert.equal(result.output, "answered after stray progress");
  assert.equal(result.is_error, false);
  assert.doesNotMatch(r.stderr, /progress notification|unknown token/i);
  assert.doesNotMatch(r.stderr, /SSE stream|404|Not Found/i);
  assert.equal(r.stderr, "", "nothing worth saying happened");
});
