/** `mopac mcp list|tools|ping|call` through runMcpCommand, against the fixture server. */
import assert from "node:assert/strict";
import { runMcpCommand } from "../../src/cli/commands/mcp.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";

async function mcp(args: string[], servers: Record<string, McpServerConfig>) {
  const logDir = await Deno.makeTempDir();
  let stdout = "";
  let stderr = "";
  try {
    const code = await runMcpCommand(args, {
      stdout: (s) => stdout += s,
      stderr: (s) => stderr += s,
      servers,
      logDir,
    });
    return { code, stdout, stderr };
  } finally {
    await Deno.remove(logDir, { recursive: true });
  }
}

const SERVERS: Record<string, McpServerConfig> = {
  fx: fixtureStdio({ enabled_tools: ["echo", "add", "fail"] }),
  off: { disabled: true, command: "x" },
};

Deno.test("mcp list: table and --json; a failed required server gives exit 6", async () => {
  const human = await mcp(["list"], SERVERS);
  assert.equal(human.code, 0);
  assert.match(human.stdout, /^NAME\s+TYPE\s+STATUS\s+TOOLS\s+ERROR\n/);
  assert.match(human.stdout, /\nfx\s+stdio\s+connected\s+3\n/);
  assert.match(human.stdout, /\noff\s+stdio\s+disabled\s+0\n/);

  const broken = { ...SERVERS, bad: { command: "mopac-no-such-command", required: true } };
  const json = await mcp(["list", "--json"], broken);
  assert.equal(json.code, 6);
  assert.deepEqual(JSON.parse(json.stdout).servers.at(-1), {
    name: "bad",
    status: "failed",
    tools: 0,
    error: "command not found: mopac-no-such-command",
    type: "stdio",
    required: true,
  });
  assert.match(json.stderr, /mcp bad: failed to start/);
});

Deno.test("mcp tools [SERVER]: model-facing names, schemas in --json", async () => {
  const human = await mcp(["tools", "fx"], SERVERS);
  assert.equal(human.code, 0);
  assert.equal(
    human.stdout,
    "mcp_fx_echo  Repeats the text.\nmcp_fx_add  Adds two numbers.\nmcp_fx_fail  Always fails.\n",
  );
  const json = JSON.parse((await mcp(["tools", "--json"], SERVERS)).stdout);
  assert.deepEqual(json.tools[0], {
    server: "fx",
    tool: "echo",
    name: "mcp_fx_echo",
    description: "Repeats the text.",
    input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  });
  const unknown = await mcp(["tools", "nope"], SERVERS);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown MCP server "nope" \(known: fx, off\)/);
});

Deno.test("mcp ping: ok for live servers, exit 6 for failed ones", async () => {
  const ok = await mcp(["ping", "--json"], SERVERS);
  assert.equal(ok.code, 0);
  const [fx, off] = JSON.parse(ok.stdout).servers;
  assert.equal(fx.status, "ok");
  assert.equal(typeof fx.ms, "number");
  assert.deepEqual(off, { name: "off", status: "disabled" });
  const bad = await mcp(["ping", "bad"], { bad: { command: "bash", args: ["-c", "exit 1"] } });
  assert.equal(bad.code, 6);
  assert.match(bad.stdout, /\nbad\s+failed\s+server exited with code 1\n/);
});

Deno.test("mcp call: result text, tool errors exit 6, bad input exit 2", async () => {
  const add = await mcp(["call", "fx", "add", '{"a": 20, "b": 22}'], SERVERS);
  assert.deepEqual([add.code, add.stdout], [0, "42\n"]);
  const byModelName = await mcp(["call", "fx", "mcp_fx_echo", '{"text":"hi"}', "--json"], SERVERS);
  assert.deepEqual(JSON.parse(byModelName.stdout), { content: [{ type: "text", text: "hi" }] });
  const fail = await mcp(["call", "fx", "fail"], SERVERS);
  assert.deepEqual([fail.code, fail.stdout], [6, "fixture failure\n"]);
  const badJson = await mcp(["call", "fx", "add", "{a:1}"], SERVERS);
  assert.equal(badJson.code, 2);
  assert.match(badJson.stderr, /not valid JSON/);
  assert.equal((await mcp(["call", "fx", "add", "[1]"], SERVERS)).code, 2);
  assert.equal((await mcp(["call", "fx"], SERVERS)).code, 2);
  assert.equal((await mcp(["frobnicate"], SERVERS)).code, 2);
  assert.equal((await mcp(["--help"], SERVERS)).code, 0);
});
