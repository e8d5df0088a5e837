/**
 * The reference server from npm, `@modelcontextprotocol/server-everything`, over stdio
 * and Streamable HTTP: echo, the tiny image, structured content, a resource reference
 * and the long-running operation whose progress keeps a short timeout from firing.
 */
import assert from "node:assert/strict";
import { createMcpManager } from "../../src/mcp/manager.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { everythingStdio, startEverythingHttp } from "../_support/mcp_everything.ts";
import { runTool, toolContext } from "../_support/mcp_helpers.ts";

/**
 * The per-call timeout: short against the long-running operation below, long enough
 * for a call and for the gaps between its progress notifications on a loaded machine.
 * Starting is bounded apart (the stdio helper's generous `start_timeout`).
 */
const TIMEOUT_S = 5;

async function exercise(cfg: McpServerConfig) {
  const logDir = await Deno.makeTempDir();
  const manager = createMcpManager({ ev: { ...cfg, timeout: TIMEOUT_S } }, { logDir });
  try {
    const [status] = await manager.start();
    assert.equal(status.status, "connected", status.error);
    const tools = manager.tools();
    for (
      const name of [
        "echo",
        "get-tiny-image",
        "get-structured-content",
        "get-resource-reference",
        "trigger-long-running-operation",
      ]
    ) assert.ok(tools.some((t) => t.name === `mcp_ev_${name}`), `has ${name}`);
    assert.equal(manager.instructions()[0]?.server, "ev");

    assert.deepEqual(await runTool(tools, "mcp_ev_echo", { message: "hi there" }), {
      content: "Echo: hi there",
    });

    const image = await runTool(
      tools,
      "mcp_ev_get-tiny-image",
      {},
      toolContext({ attachments: true }),
    );
    assert.equal(image.images?.length, 1);
    assert.equal(image.images![0].mime_type, "image/png");
    assert.ok(image.images![0].data.length > 100);
    assert.match(image.content, /Here's the image you requested:\n\[image attached: image\/png/);

    const weather = await runTool(tools, "mcp_ev_get-structured-content", { location: "Chicago" });
    assert.deepEqual(JSON.parse(weather.content), {
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });

    const ref = await runTool(tools, "mcp_ev_get-resource-reference", {
      resourceType: "Text",
      resourceId: 3,
    });
    assert.match(
      ref.content,
      /^Returning resource reference for Resource 3:\n\[resource \S+3 \(text\/plain\)\]\n./,
    );

    // 8 steps of 1 s against a 5 s timeout: only the progress notifications keep it alive.
    const long = await runTool(tools, "mcp_ev_trigger-long-running-operation", {
      duration: 8,
      steps: 8,
    });
    assert.deepEqual(long, {
      content: "Long running operation completed. Duration: 8 seconds, Steps: 8.",
    });
  } finally {
    await manager.close();
    await Deno.remove(logDir, { recursive: true });
  }
}

Deno.test("server-everything over stdio", async () => {
  await exercise(everythingStdio());
});

Deno.test("server-everything over streamable HTTP", async () => {
  const server = await startEverythingHttp();
  try {
    await exercise({ type: "http", url: server.url });
  } finally {
    await server.close();
  }
});
