/**
 * MCP inside real runs: `main.ts` as a subprocess under narrowed Deno flags, with the
 * fixture server over stdio (its command in --allow-run) and over Streamable HTTP
 * (its port in --allow-net). Covers readiness before the first request, the init
 * event, calls reaching the next request, instructions in the system prompt, failed
 * and required servers, no leftover processes (also after SIGINT and SIGTERM), the
 * gate's allowed_mcp, and `mopac mcp list|tools|ping|call`.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { waitFor } from "../_support/wait.ts";
import { FIXTURE_INSTRUCTIONS, startFixtureHttp } from "../_support/mcp_fixture_server.ts";
import {
  cleanup,
  eventStream,
  live,
  mcpWorkspace,
  sleepers,
  systemText,
  toolMessages,
  toolNames,
  wrappedServer,
} from "./_mcp_run.ts";

Deno.test("e2e mcp: stdio and HTTP servers are ready before the first request; calls round-trip", async () => {
  await using http = await startFixtureHttp("http");
  // The stdio server takes a while to start: the run must still wait for it.
  await using ws = await mcpWorkspace(
    [
      scriptToolCall("mcp_fx_echo", { text: "echo-7731" }),
      scriptToolCall("mcp_web_add", { a: 20, b: 22 }),
      scriptText("Both servers answered."),
    ],
    {
      fx: fixtureStdio({}, ["--delay-ms", "300"]),
      web: { type: "http", url: http.url, enabled_tools: ["echo", "add"] },
    },
    { net: [new URL(http.url).host] },
  );
  const r = await ws.run(["run", "-o", "stream-json", "use the servers"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const reqs = ws.fake.turnRequests();
  assert.equal(reqs.length, 3);

  // The first request already offers every tool of both servers.
  const first = toolNames(reqs[0]);
  const fxTools = first.filter((n) => n.startsWith("mcp_fx_"));
  assert.ok(fxTools.includes("mcp_fx_echo") && fxTools.includes("mcp_fx_slow"), String(first));
  assert.deepEqual(first.filter((n) => n.startsWith("mcp_web_")), [
    "mcp_web_add",
    "mcp_web_echo",
  ]);

  // init reports each server with the tool count the model was offered.
  const ev = events(r.stdout);
  assert.equal(ev[0].type, "init");
  assert.deepEqual(ev[0].mcp_servers, [
    { name: "fx", status: "connected", tools: fxTools.length },
    { name: "web", status: "connected", tools: 2 },
  ]);

  // Each result reaches the next request.
  assert.deepEqual(toolMessages(reqs[1]).map((m) => m.content), ["echo-7731"]);
  assert.deepEqual(toolMessages(reqs[2]).map((m) => m.content), ["echo-7731", "42"]);
  const results = ev.filter((e) => e.type === "tool_result");
  assert.deepEqual(results.map((e) => [e.name, e.is_error]), [
    ["mcp_fx_echo", false],
    ["mcp_web_add", false],
  ]);
  assert.equal(ev.at(-1)!.result, "Both servers answered.");

  // Both servers' instructions are in the system prompt, under their names.
  const system = systemText(reqs[0]);
  assert.match(system, /# MCP server instructions/);
  assert.ok(system.includes(`## fx\\n\\n${FIXTURE_INSTRUCTIONS}`), system);
  assert.ok(system.includes(`## web\\n\\n${FIXTURE_INSTRUCTIONS}`), system);

  // The stdio server's stderr went to the data dir's log.
  const log = await Deno.readTextFile(`${ws.dir}/.mopac/logs/mcp-fx.log`);
  assert.match(log, /started .*deno/);
});

Deno.test("e2e mcp: a failing optional server is a warning; the run goes on without its tools", async () => {
  await using ws = await mcpWorkspace(
    [scriptToolCall("mcp_fx_echo", { text: "still here" }), scriptText("ok")],
    {
      fx: fixtureStdio({ enabled_tools: ["echo"] }),
      // An absolute path Deno can grant but that does not exist.
      broken: { command: "/nonexistent/mopac-mcp-server" },
    },
    { run: ["/nonexistent/mopac-mcp-server"] },
  );
  const r = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split("\n").filter((l) => l.includes("broken"));
  assert.deepEqual(warnings, [
    "mcp broken: failed to start: command not found: /nonexistent/mopac-mcp-server",
  ]);
  const init = events(r.stdout)[0];
  assert.deepEqual(init.mcp_servers, [
    { name: "fx", status: "connected", tools: 1 },
    {
      name: "broken",
      status: "failed",
      tools: 0,
      error: "command not found: /nonexistent/mopac-mcp-server",
    },
  ]);
  const offered = toolNames(ws.fake.turnRequests()[0]).filter((n) => n.startsWith("mcp_"));
  assert.deepEqual(offered, ["mcp_fx_echo"]);
  assert.deepEqual(toolMessages(ws.fake.turnRequests()[1]).map((m) => m.content), [
    "still here",
  ]);
});

Deno.test("e2e mcp: a failing required server is exit 6 before any request, naming it", async () => {
  await using ws = await mcpWorkspace([scriptText("never")], {
    fx: fixtureStdio({ enabled_tools: ["echo"] }),
    vault: { command: "bash", args: ["-c", "echo 'vault: no token' >&2; exit 3"], required: true },
  });
  for (const output of ["text", "json"]) {
    const r = await ws.run(["run", "-o", output, "go"]);
    assert.equal(r.code, 6, r.stderr);
    assert.match(
      r.stderr,
      /mopac: required MCP server "vault" is not available: server exited with code 3; stderr: vault: no token\n/,
    );
    assert.match(r.stderr, /hint: see .*\/\.mopac\/logs\/mcp-vault\.log/);
    assert.doesNotMatch(r.stderr, /\n\s+at .*\.ts:\d+/, "no stack trace");
    if (output === "json") {
      const result = JSON.parse(r.stdout);
      assert.equal(result.exit_code, 6);
      assert.equal(result.subtype, "error_tool");
    } else {
      assert.equal(r.stdout, "");
    }
  }
  assert.equal(ws.fake.requests.length, 0);
});

Deno.test("e2e mcp: a server started through bash -c leaves no process after mopac exits", async () => {
  const marker = `${Math.floor(Math.random() * 1e6)}.789`;
  await using ws = await mcpWorkspace([
    scriptToolCall("mcp_wrapped_echo", { text: "wrapped" }),
    // Slow enough that the server is certainly still up after the tool result.
    scriptText("done", { chunkSize: 1, delayMs: 100 }),
  ], { wrapped: wrappedServer(marker) });
  const child = ws.spawn(["run", "-o", "stream-json", "go"]);
  try {
    const stream = eventStream(child);
    const result = await stream.until((e) => e.type === "tool_result");
    assert.equal(result.output, "wrapped");
    // Mid-run the wrapper's grandchild is alive (so the check below can fail).
    assert.equal((await sleepers(marker)).length, 1);
    const { code, events: rest, stderr } = await stream.finish();
    assert.equal(code, 0, stderr);
    assert.equal(rest.at(-1)?.result, "done");
    assert.deepEqual(await live(marker), []);
  } finally {
    await cleanup(child, marker);
  }
});

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`e2e mcp: ${signal} during an MCP call exits ${code} and leaves no server process`, async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.${code}`;
    await using ws = await mcpWorkspace(
      [scriptToolCall("mcp_wrapped_hang", {}), scriptText("never")],
      { wrapped: wrappedServer(marker) },
    );
    const child = ws.spawn(["run", "-o", "stream-json", "go"]);
    try {
      const stream = eventStream(child);
      // Wait until the model's call of the hanging tool is under way.
      const call = await stream.until((e) => e.type === "tool_call");
      assert.equal(call.name, "mcp_wrapped_hang");
      assert.equal((await sleepers(marker)).length, 1, "the server's group runs mid-call");
      child.kill(signal);
      const { code: exit, events: rest, stderr } = await stream.finish();
      assert.equal(exit, code, stderr);
      const result = rest.at(-1)!;
      assert.equal(result.type, "result");
      assert.equal(result.subtype, "cancelled");
      assert.equal(result.exit_code, code);
      assert.deepEqual(await live(marker), []);
      assert.equal(ws.fake.turnRequests().length, 1);
    } finally {
      await cleanup(child, marker);
    }
  });
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`e2e mcp: ${signal} while servers start exits ${code} and leaves no process`, async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.${code + 1}`;
    // The server takes far longer to start than the test waits.
    await using ws = await mcpWorkspace([scriptText("never")], {
      wrapped: wrappedServer(marker, "--delay-ms 20000"),
    });
    const child = ws.spawn(["run", "-o", "stream-json", "go"]);
    try {
      const stream = eventStream(child);
      await waitFor(async () => (await sleepers(marker)).length === 1, "the sleeper to start");
      child.kill(signal);
      const { code: exit, events: ev, stderr } = await stream.finish();
      assert.equal(exit, code, stderr);
      assert.equal(stderr, `mopac: interrupted by ${signal}\n`);
      assert.deepEqual(ev.map((e) => [e.type, e.subtype, e.exit_code]), [
        ["result", "cancelled", code],
      ]);
      // The session was open already: the result names it.
      assert.match(String(ev[0].session_id), /^[0-9a-f-]{36}$/);
      assert.deepEqual(await live(marker), []);
      assert.equal(ws.fake.requests.length, 0);
    } finally {
      await cleanup(child, marker);
    }
  });
}

Deno.test("e2e mcp: allowed_mcp offers only the listed tool; calling another is a denial", async () => {
  await using ws = await mcpWorkspace(
    [
      scriptToolCall("mcp_fx_add", { a: 1, b: 2 }),
      scriptToolCall("mcp_fx_echo", { text: "allowed" }),
      scriptText("done"),
    ],
    { fx: fixtureStdio({ enabled_tools: ["echo", "add"] }) },
    {
      config: {
        agents: { narrow: { allowed_tools: ["view"], allowed_mcp: { fx: ["echo"] } } },
      },
    },
  );
  const r = await ws.run(["run", "--agent", "narrow", "-o", "stream-json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const reqs = ws.fake.turnRequests();
  assert.deepEqual(toolNames(reqs[0]), ["mcp_fx_echo", "view"]);
  const ev = events(r.stdout);
  assert.deepEqual(ev[0].mcp_servers, [{ name: "fx", status: "connected", tools: 2 }]);
  const results = ev.filter((e) => e.type === "tool_result");
  assert.deepEqual(results.map((e) => [e.name, e.is_error, e.denied]), [
    ["mcp_fx_add", true, true],
    ["mcp_fx_echo", false, false],
  ]);
  const [denied, echoed] = toolMessages(reqs[2]).map((m) => String(m.content));
  assert.match(denied, /^Permission denied: MCP tool "add" of server "fx" is not allowed/);
  assert.equal(echoed, "allowed");
  const result = ev.at(-1)!;
  const denials = result.denials as Array<Record<string, unknown>>;
  assert.deepEqual(denials.map((d) => [d.tool, d.rule]), [["mcp_fx_add", "allowed_mcp"]]);
});

Deno.test("e2e mcp: `mopac mcp list|tools|ping|call` against the configured fixture", async () => {
  await using ws = await mcpWorkspace([], { fx: fixtureStdio({ enabled_tools: ["echo", "add"] }) });
  const mcp = (...args: string[]) => ws.run(["mcp", ...args]);
  const list = await mcp("list");
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, "NAME  TYPE   STATUS     TOOLS  ERROR\nfx    stdio  connected  2\n");
  const listJson = await mcp("list", "--json");
  assert.deepEqual(JSON.parse(listJson.stdout), {
    servers: [{ name: "fx", status: "connected", tools: 2, type: "stdio", required: false }],
  });

  const tools = await mcp("tools");
  assert.equal(tools.code, 0, tools.stderr);
  assert.equal(tools.stdout, "mcp_fx_echo  Repeats the text.\nmcp_fx_add  Adds two numbers.\n");
  const toolsJson = JSON.parse((await mcp("tools", "fx", "--json")).stdout);
  assert.deepEqual(toolsJson.tools.map((t: { name: string }) => t.name), [
    "mcp_fx_echo",
    "mcp_fx_add",
  ]);
  assert.deepEqual(toolsJson.tools[1].input_schema.required, ["a", "b"]);

  const ping = await mcp("ping");
  assert.equal(ping.code, 0, ping.stderr);
  assert.match(ping.stdout, /^NAME\s+STATUS\s+TIME\s+ERROR\nfx\s+ok\s+\d+ ms\n$/);
  const pingJson = JSON.parse((await mcp("ping", "fx", "--json")).stdout);
  assert.equal(pingJson.servers[0].status, "ok");

  const call = await mcp("call", "fx", "add", '{"a": 2, "b": 40}');
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout, "42\n");
  const callJson = await mcp("call", "fx", "mcp_fx_echo", '{"text": "hi"}', "--json");
  assert.deepEqual(JSON.parse(callJson.stdout).content, [{ type: "text", text: "hi" }]);

  const unknown = await mcp("call", "nope", "echo");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown MCP server "nope" \(known: fx\)/);
  const bad = await mcp("call", "fx", "add", "{not json");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /the arguments are not valid JSON/);
  assert.equal(ws.fake.requests.length, 0);
});
