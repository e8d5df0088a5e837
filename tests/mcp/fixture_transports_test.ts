/**
 * The fixture server over each transport (stdio, Streamable HTTP, legacy SSE): tool
 * listing and naming, result mapping, progress extending the timeout, a hung call
 * timing out into a tool error, cancellation, and the server's instructions.
 */
import assert from "node:assert/strict";
import { createMcpManager } from "../../src/mcp/manager.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import {
  FIXTURE_INSTRUCTIONS,
  startFixtureHttp,
  TINY_PNG,
} from "../_support/mcp_fixture_server.ts";
import { fixtureStdio, runTool, toolContext } from "../_support/mcp_helpers.ts";

const FIXTURE_TOOLS = [
  "add",
  "add_tool",
  "ask",
  "crash",
  "drop_sessions",
  "echo",
  "fail",
  "hang",
  "image",
  "pid",
  "roots",
  "slow",
  "stray_progress",
  "structured",
];

/**
 * The per-call timeout of `short`, the same server under a second name: short, so a
 * hung call ends quickly, and long enough that the gaps between progress
 * notifications stay well inside it on a loaded machine. `fx` has a generous one:
 * how long a call takes under load is not what the other checks test. Both have the
 * start deadline of the config they are given.
 */
const TIMEOUT_S = 3;

async function exercise(cfg: McpServerConfig) {
  const logDir = await Deno.makeTempDir();
  const manager = createMcpManager({
    fx: { ...cfg, timeout: 60 },
    short: { ...cfg, timeout: TIMEOUT_S, enabled_tools: ["add", "hang", "slow"] },
  }, { logDir });
  try {
    const statuses = await manager.start();
    assert.deepEqual(statuses, [
      { name: "fx", status: "connected", tools: FIXTURE_TOOLS.length },
      { name: "short", status: "connected", tools: 3 },
    ]);
    manager.assertRequired();
    const tools = manager.tools();
    assert.deepEqual(
      tools.map((t) => t.name).filter((n) => n.startsWith("mcp_fx_")).sort(),
      FIXTURE_TOOLS.map((t) => `mcp_fx_${t}`),
    );
    assert.deepEqual(tools.find((t) => t.name === "mcp_fx_echo")?.mcp, {
      server: "fx",
      tool: "echo",
    });
    assert.deepEqual(manager.instructions(), [
      { server: "fx", text: FIXTURE_INSTRUCTIONS },
      { server: "short", text: FIXTURE_INSTRUCTIONS },
    ]);

    assert.deepEqual(await runTool(tools, "mcp_fx_echo", { text: "héllo" }), { content: "héllo" });
    assert.deepEqual(await runTool(tools, "mcp_fx_add", { a: 2, b: 40 }), { content: "42" });
    assert.deepEqual(await runTool(tools, "mcp_fx_fail"), {
      content: "fixture failure",
      is_error: true,
    });

    const withImages = await runTool(tools, "mcp_fx_image", {}, toolContext({ attachments: true }));
    assert.deepEqual(withImages.images, [{
      type: "image",
      mime_type: "image/png",
      data: TINY_PNG,
    }]);
    const noImages = await runTool(tools, "mcp_fx_image");
    assert.equal(noImages.images, undefined);
    assert.match(noImages.content, /^\[image omitted: image\/png, \d+ B/);

    const structured = await runTool(tools, "mcp_fx_structured");
    assert.deepEqual(JSON.parse(structured.content), { answer: 42, unit: "widgets" });

    // 4 × 1 s is longer than the timeout; progress after each step extends it.
    assert.deepEqual(await runTool(tools, "mcp_short_slow", { steps: 4, ms: 1_000 }), {
      content: "done after 4 steps",
    });

    const hung = await runTool(tools, "mcp_short_hang");
    assert.equal(hung.is_error, true);
    assert.match(hung.content, new RegExp(`did not answer within ${TIMEOUT_S}s`));

    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const cancelled = await runTool(
      tools,
      "mcp_fx_hang",
      {},
      toolContext({ signal: abort.signal }),
    );
    assert.deepEqual(cancelled, { content: "the call was cancelled", is_error: true });

    // The connections still work after a timeout and a cancellation.
    assert.deepEqual(await runTool(tools, "mcp_short_add", { a: 1, b: 1 }), { content: "2" });
    assert.deepEqual(await runTool(tools, "mcp_fx_add", { a: 1, b: 1 }), { content: "2" });
  } finally {
    await manager.close();
    await Deno.remove(logDir, { recursive: true });
  }
}

Deno.test("fixture over stdio", async () => {
  await exercise(fixtureStdio());
});

Deno.test("fixture over streamable HTTP", async () => {
  const server = await startFixtureHttp("http");
  try {
    await exercise({ type: "http", url: server.url });
  } finally {
    await server.close();
  }
});

Deno.test("fixture over legacy SSE", async () => {
  const server = await startFixtureHttp("sse");
  try {
    await exercise({ type: "sse", url: server.url });
  } finally {
    await server.close();
  }
});
