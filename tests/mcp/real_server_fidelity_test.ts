/**
 * What real servers from npm send, and what the model gets of it:
 * server-filesystem's `read_media_file` repeats the image in `structuredContent` as
 * base64 (about 36 KB for a 27 KB PNG), which must not reach the model as text; and
 * server-everything's `simulate-research-query` declares `taskSupport: "required"`,
 * so it must be called as a task (a plain call fails with -32601).
 */
import assert from "node:assert/strict";
import { createMcpManager } from "../../src/mcp/manager.ts";
import { everythingStdio } from "../_support/mcp_everything.ts";
import { fakePng, filesystemStdio } from "../_support/mcp_filesystem.ts";
import { runTool, toolContext } from "../_support/mcp_helpers.ts";

Deno.test("server-filesystem: an image is attached once, and its base64 is never text", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const logDir = await Deno.makeTempDir();
  const png = fakePng(27 * 1024);
  await Deno.writeFile(`${root}/shot.png`, png);
  const manager = createMcpManager({ fs: { ...filesystemStdio(root), timeout: 60 } }, { logDir });
  try {
    const [status] = await manager.start();
    assert.equal(status.status, "connected", status.error);
    const args = { path: `${root}/shot.png` };
    const attached = await runTool(
      manager.tools(),
      "mcp_fs_read_media_file",
      args,
      toolContext({ attachments: true }),
    );
    assert.equal(attached.images?.length, 1);
    assert.equal(attached.content, "[image attached: image/png, 27.0 KiB]");

    const placeholder = await runTool(manager.tools(), "mcp_fs_read_media_file", args);
    assert.equal(placeholder.images, undefined);
    assert.equal(
      placeholder.content,
      "[image omitted: image/png, 27.0 KiB; not viewable here]",
    );
  } finally {
    await manager.close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(logDir, { recursive: true });
  }
});

Deno.test("server-everything: a tool with taskSupport required is offered and runs as a task", async () => {
  const logDir = await Deno.makeTempDir();
  const manager = createMcpManager({ ev: { ...everythingStdio(), timeout: 60 } }, { logDir });
  try {
    const [status] = await manager.start();
    assert.equal(status.status, "connected", status.error);
    const out = await runTool(manager.tools(), "mcp_ev_simulate-research-query", {
      topic: "lighthouses",
    });
    assert.equal(out.is_error, undefined, out.content);
    assert.match(out.content, /^# Research Report: lighthouses/);
    assert.match(out.content, /Stage 4: Generating report ✓/);
  } finally {
    await manager.close();
    await Deno.remove(logDir, { recursive: true });
  }
});
