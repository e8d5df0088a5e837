/**
 * MCP servers that break the protocol (tests/_support/mcp_bad_server.ts): every kind of
 * bad answer must end as a warning or a tool error that names the server, never as a
 * crash, and the rest of the run goes on. First through McpManager, then through real
 * `main.ts` runs against the strict fake model server.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { createMcpManager, type McpManager } from "../../src/mcp/manager.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { ToolInfraError } from "../../src/util/errors.ts";
import { runTool, toolContext } from "../_support/mcp_helpers.ts";
import { waitFor } from "../_support/wait.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";
import { HUGE_HEAD, HUGE_TAIL, LONG_TOOL } from "../_support/mcp_bad_server.ts";
import { scriptText, scriptToolCall, scriptToolCalls } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { mcpWorkspace, toolMessages, toolNames } from "../e2e/_mcp_run.ts";

const BAD = new URL("../_support/mcp_bad_server.ts", import.meta.url).pathname;

/**
 * Generous deadlines: how long starting a Deno process or moving megabytes takes
 * depends on the machine's load, and timing is not what these tests test. A test of
 * a timeout sets a short one on a server of its own.
 */
function bad(mode: string, extra: Partial<McpServerConfig> = {}, args: string[] = []) {
  return {
    command: Deno.execPath(),
    args: [...DENO_RUN, BAD, mode, ...args],
    timeout: 60,
    start_timeout: START_TIMEOUT_S,
    ...extra,
  } satisfies McpServerConfig;
}

async function withManager(
  servers: Record<string, McpServerConfig>,
  fn: (m: McpManager, logs: string[], logDir: string) => Promise<void>,
) {
  const logDir = await Deno.makeTempDir();
  const logs: string[] = [];
  const manager = createMcpManager(servers, { logDir, log: (l) => logs.push(l) });
  try {
    await manager.start();
    await fn(manager, logs, logDir);
  } finally {
    await manager.close();
    await Deno.remove(logDir, { recursive: true });
  }
}

const pidOf = async (m: McpManager, server: string) =>
  JSON.parse((await runTool(m.tools(), `mcp_${server}_stats`)).content) as {
    pid: number;
    lists: number;
  };

/** What a strict endpoint checks: a name it takes, a compilable object schema, no top-level union. */
function assertStrictlyAcceptable(tools: Array<{ name: string; parameters: unknown }>) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const names = new Set<string>();
  for (const { name, parameters } of tools) {
    assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
    assert.ok(!names.has(name), `duplicate ${name}`);
    names.add(name);
    const p = parameters as Record<string, unknown>;
    assert.equal(p.type, "object", name);
    assert.equal(typeof p.properties, "object", name);
    for (const key of ["$ref", "oneOf", "anyOf", "allOf", "not", "enum"]) {
      assert.ok(!(key in p), `${name}: top-level ${key}`);
    }
    ajv.compile(p);
    ajv.removeSchema();
  }
}

Deno.test("garbage on stdout before and after initialize: skipped with warnings naming the server", async () => {
  await withManager({ junk: bad("garbage") }, async (m, logs) => {
    assert.deepEqual(m.statuses(), [{ name: "junk", status: "connected", tools: 14 }]);
    for (const where of ["at startup", "after initialize"]) {
      assert.ok(
        logs.includes(`mcp junk: not a JSON-RPC message on stdout: this is not json (${where})`),
      );
      assert.ok(
        logs.some((l) => l.includes(`{"hello": "a JSON line that is not JSON-RPC (${where})"}`)),
      );
    }
    // Four junk lines before every answer: the calls still work, the warnings stop at 20.
    for (let i = 0; i < 6; i++) {
      assert.deepEqual(await runTool(m.tools(), "mcp_junk_echo", { text: `hi ${i}` }), {
        content: `hi ${i}`,
      });
    }
    const junk = logs.filter((l) => l.startsWith("mcp junk: not a JSON-RPC message"));
    assert.equal(junk.length, 20);
    assert.match(junk[19], /\(further such lines are not reported\)$/);
  });
});

Deno.test("initialize answered with an error or never: that server fails, the others go on", async () => {
  const servers = {
    refuses: bad("init-error"),
    silent: bad("init-silent", { start_timeout: 0.5, required: true }),
    fine: bad("ok"),
  };
  await withManager(servers, async (m, logs) => {
    assert.deepEqual(m.statuses(), [
      {
        name: "refuses",
        status: "failed",
        tools: 0,
        error: "MCP error -32603: license check failed",
      },
      { name: "silent", status: "failed", tools: 0, error: "did not become ready within 0.5s" },
      { name: "fine", status: "connected", tools: 14 },
    ]);
    assert.ok(
      logs.includes("mcp refuses: failed to start: MCP error -32603: license check failed"),
    );
    assert.ok(logs.includes("mcp silent: failed to start: did not become ready within 0.5s"));
    assert.throws(() => m.assertRequired(), (err: unknown) => {
      assert.ok(err instanceof ToolInfraError);
      assert.match(err.message, /required MCP server "silent" is not available: did not become/);
      return true;
    });
    assert.ok(m.tools().every((t) => t.name.startsWith("mcp_fine_")));
    assert.deepEqual(await runTool(m.tools(), "mcp_fine_echo", { text: "on" }), { content: "on" });
  });
});

Deno.test("a server slower to start than its call timeout connects: starting has its own deadline", async () => {
  // initialize is answered 1.5 s late; a call may take 0.5 s; the start deadline is the
  // default (30 s), not the call timeout.
  const slow = bad("ok", { timeout: 0.5, start_timeout: undefined }, ["--init-delay-ms", "1500"]);
  await withManager({ slow }, async (m) => {
    assert.deepEqual(m.statuses(), [{ name: "slow", status: "connected", tools: 14 }]);
    const out = await runTool(m.tools(), "mcp_slow_no_answer");
    assert.match(out.content, /^MCP server "slow" did not answer within 0\.5s/);
  });
});

Deno.test("tools/list with bad names, duplicates and schemas: sanitised, or dropped with a warning", async () => {
  await withManager({ bad: bad("bad-tools") }, async (m, logs) => {
    const byName = new Map(m.tools().map((t) => [t.name, t]));
    const long = [...byName.keys()].find((n) => n.startsWith("mcp_bad_ttt"))!;
    assert.deepEqual([...byName.keys()], [
      "mcp_bad_has_spaces_in_it",
      "mcp_bad__n_c_d_-___",
      long,
      "mcp_bad_dup",
      "mcp_bad_no_schema",
      "mcp_bad_string_schema",
      "mcp_bad_array_type",
      "mcp_bad_ref_schema",
      "mcp_bad_one_of",
      "mcp_bad_odd_keywords",
      "mcp_bad_echo",
    ]);
    assert.equal(long.length, 64);
    assert.equal(byName.get(long)!.mcp?.tool, LONG_TOOL);
    assert.equal(byName.get("mcp_bad_dup")!.description, "first dup");
    assertStrictlyAcceptable([...byName.values()]);
    const params = (n: string) => byName.get(`mcp_bad_${n}`)!.parameters as Record<string, unknown>;
    assert.deepEqual(params("no_schema"), { type: "object", properties: {} });
    assert.deepEqual(params("ref_schema").properties, { path: { type: "string" } });
    assert.deepEqual(Object.keys(params("one_of").properties as object), ["a", "b"]);
    assert.deepEqual(params("odd_keywords").required, ["when"]);

    const dropped = logs.filter((l) => l.startsWith("mcp bad: tool"));
    assert.equal(dropped.length, 6, logs.join("\n"));
    assert.match(dropped[0], /^mcp bad: tool "dup" dropped: the server lists that name twice$/);
    assert.match(dropped[1], /^mcp bad: tool "bad_type" dropped: its input schema is invalid: /);
    assert.match(
      dropped[2],
      /"dangling_ref" dropped: .*reference "#\/\$defs\/Missing" does not resolve within the schema/,
    );
    assert.match(
      dropped[3],
      /^mcp bad: tool #14 of tools\/list dropped: it has no name \(\{"name":42/,
    );
    assert.match(dropped[5], /tool #16 .* no name \("not even an object"\)$/);

    // A sanitised name still calls the server's own name (which this server does not know).
    const call = await runTool(m.tools(), "mcp_bad_has_spaces_in_it", { q: "x" });
    assert.deepEqual(call, {
      content:
        'MCP server "bad" returned an error: MCP error -32602: unknown tool has spaces in it',
      is_error: true,
    });
    assert.deepEqual(await runTool(m.tools(), "mcp_bad_echo", { text: "ok" }), { content: "ok" });
  });
});

Deno.test("tools/call answers: odd content is mapped; errors and timeouts name the server", async () => {
  // The 70 MiB line goes to a server of its own; the calls that must time out go to
  // one with a short timeout.
  const servers = {
    srv: bad("ok"),
    big: bad("ok"),
    mute: bad("ok", { timeout: 1, enabled_tools: ["wrong_id", "no_answer", "stats"] }),
  };
  await withManager(servers, async (m, logs) => {
    const { pid } = await pidOf(m, "srv");
    const call = (name: string, attachments = false) =>
      runTool(m.tools(), `mcp_srv_${name}`, {}, toolContext({ attachments }));
    assert.deepEqual(await call("unknown_type"), {
      content: '[unsupported content block of type "hologram"]\nafter hologram',
    });
    const images = await call("bad_image", true);
    assert.equal(
      images.content,
      "[image omitted: image/png, the data is not valid base64]\n" +
        "[image attached: image/png, 70 B]\n" +
        "[image omitted: image/png, the data is not a PNG, JPEG, GIF or WebP image]\n" +
        "[image attached: image/png, 70 B]",
    );
    // The one declared text/html is a PNG: it goes out as what its bytes are; the
    // wrapped one goes out without its line breaks.
    assert.deepEqual(images.images!.map((i) => i.mime_type), ["image/png", "image/png"]);
    assert.match(images.images![1].data, /^[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(await call("error_no_content"), {
      content: 'MCP server "srv" reported that tool "error_no_content" failed, without saying why',
      is_error: true,
    });
    assert.deepEqual(await call("rpc_error"), {
      content: 'MCP server "srv" returned an error: MCP error -32000: backend exploded',
      is_error: true,
    });
    assert.deepEqual(await call("weird_result"), { content: "a string, not a list" });
    const mutePid = (await pidOf(m, "mute")).pid;
    const [wrongId, silent] = await Promise.all(
      ["wrong_id", "no_answer"].map((name) => runTool(m.tools(), `mcp_mute_${name}`)),
    );
    for (const out of [wrongId, silent]) {
      assert.equal(out.is_error, true);
      assert.match(out.content, /^MCP server "mute" did not answer within 1s \(.*timed out\)/);
    }
    assert.ok(
      logs.some((l) => /^mcp mute: Received a response for an unknown message ID/.test(l)),
    );
    // A line of 70 MiB is dropped (not kept), and the answer after it still arrives.
    const bigPid = (await pidOf(m, "big")).pid;
    assert.deepEqual(await runTool(m.tools(), "mcp_big_flood_line"), {
      content: "after the flood",
    });
    assert.ok(
      logs.some((l) =>
        /^mcp big: a line of more than \d+ characters on stdout was discarded$/.test(l)
      ),
    );
    // None of this cost the connections: the same processes answer.
    assert.equal((await pidOf(m, "srv")).pid, pid);
    assert.equal((await pidOf(m, "big")).pid, bigPid);
    assert.equal((await pidOf(m, "mute")).pid, mutePid);
    assert.ok(!logs.some((l) => l.includes("reconnecting")), logs.join("\n"));
  });
});

Deno.test("a 10 MB text arrives whole from the server (the runner cuts it: see the e2e test)", async () => {
  await withManager({ srv: bad("ok") }, async (m) => {
    const out = await runTool(m.tools(), "mcp_srv_huge_text", { mb: 10 });
    assert.ok(out.content.length > 10 * 1024 * 1024);
    assert.ok(out.content.startsWith(HUGE_HEAD) && out.content.endsWith(HUGE_TAIL));
  });
});

Deno.test("the server exiting mid-call is a tool error; the next call reconnects", async () => {
  await withManager({ srv: bad("ok") }, async (m, logs, logDir) => {
    const { pid } = await pidOf(m, "srv");
    const died = await runTool(m.tools(), "mcp_srv_exit");
    assert.equal(died.is_error, true);
    assert.match(died.content, /^the connection to MCP server "srv" was lost during the call/);
    assert.deepEqual(await runTool(m.tools(), "mcp_srv_echo", { text: "back" }), {
      content: "back",
    });
    assert.notEqual((await pidOf(m, "srv")).pid, pid);
    assert.ok(logs.includes("mcp srv: reconnecting (MCP error -32000: Connection closed)"));
    assert.match(await Deno.readTextFile(`${logDir}/mcp-srv.log`), /bad server: exiting mid-call/);
  });
});

Deno.test("heavy stderr neither blocks start nor calls; it goes to the log file", async () => {
  await withManager({ loud: bad("ok", {}, ["--stderr-mb", "8"]) }, async (m, _logs, logDir) => {
    assert.equal(m.statuses()[0].status, "connected");
    assert.deepEqual(await runTool(m.tools(), "mcp_loud_shout", { mb: 8 }), { content: "shouted" });
    // stderr is its own pipe: the log may trail the answer by a moment.
    const logged = async () => (await Deno.stat(`${logDir}/mcp-loud.log`)).size;
    await waitFor(async () => await logged() >= 16 * 1024 * 1024, "16 MiB in the log");
  });
});

Deno.test("a storm of tools/list_changed costs one re-list between turns", async () => {
  await withManager({ srv: bad("ok") }, async (m) => {
    assert.deepEqual(await runTool(m.tools(), "mcp_srv_storm", { count: 2000 }), {
      content: "stormed 2000",
    });
    assert.ok(!m.tools().some((t) => t.name === "mcp_srv_extra"), "not applied mid-turn");
    assert.equal(await m.refresh(), true);
    assert.ok(m.tools().some((t) => t.name === "mcp_srv_extra"));
    assert.equal(await m.refresh(), false);
    assert.equal((await pidOf(m, "srv")).lists, 2, "one list at start, one after the storm");
  });
});

Deno.test("e2e: bad servers at start-up are warnings; the run offers only tools a strict endpoint takes", async () => {
  await using ws = await mcpWorkspace(
    [
      scriptToolCall("mcp_junk_echo", { text: "through the junk" }),
      scriptToolCall("mcp_badtools_one_of", { a: "x" }),
      scriptText("done"),
    ],
    {
      junk: bad("garbage"),
      refuses: bad("init-error"),
      silent: bad("init-silent", { start_timeout: 1 }),
      badtools: bad("bad-tools"),
      loud: bad("ok", { enabled_tools: ["echo"] }, ["--stderr-mb", "4"]),
    },
  );
  const r = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  assert.doesNotMatch(r.stderr, /\n\s+at .*\.ts:\d+/, "no stack trace");
  const init = events(r.stdout)[0];
  assert.deepEqual(init.mcp_servers, [
    { name: "junk", status: "connected", tools: 14 },
    {
      name: "refuses",
      status: "failed",
      tools: 0,
      error: "MCP error -32603: license check failed",
    },
    { name: "silent", status: "failed", tools: 0, error: "did not become ready within 1s" },
    { name: "badtools", status: "connected", tools: 11 },
    { name: "loud", status: "connected", tools: 1 },
  ]);
  const stderr = r.stderr.split("\n");
  for (
    const line of [
      "mcp refuses: failed to start: MCP error -32603: license check failed",
      "mcp silent: failed to start: did not become ready within 1s",
      "mcp junk: not a JSON-RPC message on stdout: this is not json (at startup)",
      'mcp badtools: tool "dup" dropped: the server lists that name twice',
    ]
  ) assert.ok(stderr.includes(line), `${line}\n---\n${r.stderr}`);

  const reqs = ws.fake.turnRequests();
  assert.equal(reqs.length, 3);
  const specs = (reqs[0].tools as Array<{ function: { name: string; parameters: unknown } }>)
    .map((t) => t.function);
  assertStrictlyAcceptable(specs);
  assert.equal(toolNames(reqs[0]).filter((n) => n.startsWith("mcp_badtools_")).length, 11);
  assert.deepEqual(toolMessages(reqs[2]).map((msg) => msg.content), [
    "through the junk",
    'MCP server "badtools" returned an error: MCP error -32602: unknown tool one_of',
  ]);
  const { size } = await Deno.stat(`${ws.dir}/.mopac/logs/mcp-loud.log`);
  assert.ok(size >= 4 * 1024 * 1024, `log has ${size} bytes`);
});

Deno.test("e2e: bad tools/call answers become tool errors; the run goes on and reconnects", async () => {
  const calls = ["huge_text", "unknown_type", "bad_image", "error_no_content", "rpc_error"];
  await using ws = await mcpWorkspace(
    [
      scriptToolCalls([
        ...calls.map((name, i) => ({ name: `mcp_srv_${name}`, arguments: {}, id: `c${i}` })),
        { name: "mcp_mute_wrong_id", arguments: {}, id: "c5" },
        { name: "mcp_srv_shout", arguments: { mb: 4 }, id: "c6" },
      ]),
      scriptToolCall("mcp_srv_exit", {}),
      scriptToolCalls([
        { name: "mcp_srv_echo", arguments: { text: "reconnected" }, id: "e1" },
        { name: "mcp_srv_storm", arguments: { count: 500 }, id: "e2" },
      ]),
      scriptToolCall("mcp_srv_extra", {}),
      scriptText("survived"),
    ],
    { srv: bad("ok"), mute: bad("ok", { timeout: 1, enabled_tools: ["wrong_id"] }) },
  );
  const r = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const ev = events(r.stdout);
  assert.equal(ev.at(-1)!.result, "survived");
  const reqs = ws.fake.turnRequests();
  assert.equal(reqs.length, 5);

  const first = toolMessages(reqs[1]).map((msg) => String(msg.content));
  assert.ok(first[0].startsWith(HUGE_HEAD) && first[0].endsWith(HUGE_TAIL));
  assert.ok(first[0].length < 40_000, `the model got ${first[0].length} characters`);
  assert.match(first[0], /\[\.\.\. \d+ characters \(\d+ lines\) cut \.\.\.\]/);
  assert.deepEqual(first.slice(1, 5), [
    '[unsupported content block of type "hologram"]\nafter hologram',
    "[image omitted: image/png, the data is not valid base64]\n" +
    "[image omitted: image/png, 70 B; not viewable here]\n" +
    "[image omitted: image/png, the data is not a PNG, JPEG, GIF or WebP image]\n" +
    "[image omitted: image/png, 70 B; not viewable here]",
    'MCP server "srv" reported that tool "error_no_content" failed, without saying why',
    'MCP server "srv" returned an error: MCP error -32000: backend exploded',
  ]);
  assert.match(first[5], /^MCP server "mute" did not answer within 1s/);
  assert.equal(first[6], "shouted");

  const lost = toolMessages(reqs[2]).at(-1)!.content;
  assert.match(String(lost), /^the connection to MCP server "srv" was lost during the call/);
  assert.deepEqual(toolMessages(reqs[3]).slice(-2).map((msg) => msg.content), [
    "reconnected",
    "stormed 500",
  ]);
  // The storm's new tool is offered from the next request on, and works.
  assert.ok(!toolNames(reqs[2]).includes("mcp_srv_extra"));
  assert.ok(toolNames(reqs[3]).includes("mcp_srv_extra"));
  assert.equal(toolMessages(reqs[4]).at(-1)!.content, "extra tool answered");

  // The session holds what the model saw, not the 10 MB; the log holds the stderr.
  let sessionBytes = 0;
  for await (const e of Deno.readDir(`${ws.dir}/.mopac/sessions`)) {
    sessionBytes += (await Deno.stat(`${ws.dir}/.mopac/sessions/${e.name}`)).size;
  }
  assert.ok(sessionBytes < 1024 * 1024, `sessions take ${sessionBytes} bytes`);
  const { size } = await Deno.stat(`${ws.dir}/.mopac/logs/mcp-srv.log`);
  assert.ok(size >= 4 * 1024 * 1024, `log has ${size} bytes`);
});
