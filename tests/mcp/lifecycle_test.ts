/**
 * What happens around the calls: servers that die, hang at start, fail, or are
 * required; lost HTTP sessions; tool-list changes; tool filters; elicitation and roots.
 */
import assert from "node:assert/strict";
import { createMcpManager, type McpManagerOptions } from "../../src/mcp/manager.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { ToolInfraError } from "../../src/util/errors.ts";
import { startFixtureHttp } from "../_support/mcp_fixture_server.ts";
import { FIXTURE, fixtureStdio, processGone, runTool } from "../_support/mcp_helpers.ts";
import { waitFor } from "../_support/wait.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";

async function withManager(
  servers: Record<string, McpServerConfig>,
  fn: (m: ReturnType<typeof createMcpManager>, logs: string[]) => Promise<void>,
  opts: Partial<McpManagerOptions> = {},
) {
  const logDir = await Deno.makeTempDir();
  const logs: string[] = [];
  const manager = createMcpManager(servers, { logDir, log: (l) => logs.push(l), ...opts });
  try {
    await manager.start();
    await fn(manager, logs);
  } finally {
    await manager.close();
    await Deno.remove(logDir, { recursive: true });
  }
}

Deno.test("a killed stdio server is restarted by the next call", async () => {
  await withManager({ fx: fixtureStdio() }, async (m, logs) => {
    const pid = Number((await runTool(m.tools(), "mcp_fx_pid")).content);
    Deno.kill(pid, "SIGKILL");
    await waitFor(() => processGone(pid));
    // A call racing the death itself may find the request in flight: then it is not
    // repeated (see the crash test). Between turns the death is noticed first.
    await waitFor(() => !m.connection("fx")!.alive);
    assert.deepEqual(await runTool(m.tools(), "mcp_fx_echo", { text: "back" }), {
      content: "back",
    });
    const newPid = Number((await runTool(m.tools(), "mcp_fx_pid")).content);
    assert.notEqual(newPid, pid);
    assert.ok(logs.some((l) => /mcp fx: reconnecting/.test(l)), logs.join("\n"));
  });
});

Deno.test("a server that cannot come back: tool error, tools stay, works once it can", async () => {
  const dir = await Deno.makeTempDir();
  const blocked = `${dir}/blocked`;
  const cmd = `test -f ${blocked} && { echo blocked >&2; exit 1; }; exec "${Deno.execPath()}" ` +
    `${DENO_RUN.join(" ")} -A ${FIXTURE} stdio`;
  const fx = { command: "bash", args: ["-c", cmd], start_timeout: START_TIMEOUT_S };
  await withManager({ fx }, async (m) => {
    const pid = Number((await runTool(m.tools(), "mcp_fx_pid")).content);
    await Deno.writeTextFile(blocked, "");
    Deno.kill(pid, "SIGKILL");
    await waitFor(() => !m.connection("fx")!.alive);
    const down = await runTool(m.tools(), "mcp_fx_echo", { text: "x" });
    assert.equal(down.is_error, true);
    assert.match(
      down.content,
      /MCP server "fx" is down: server exited with code 1; stderr: blocked/,
    );
    assert.equal(m.statuses()[0].status, "failed");
    await m.refresh();
    assert.ok(m.tools().some((t) => t.name === "mcp_fx_echo"), "tools stay offered");
    await Deno.remove(blocked);
    assert.deepEqual(await runTool(m.tools(), "mcp_fx_echo", { text: "up" }), { content: "up" });
    assert.equal(m.statuses()[0].status, "connected");
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a server dying during a call: tool error, not repeated, next call works", async () => {
  await withManager({ fx: fixtureStdio() }, async (m) => {
    const crashed = await runTool(m.tools(), "mcp_fx_crash");
    assert.equal(crashed.is_error, true);
    assert.match(crashed.content, /lost during the call.*not repeated/);
    assert.deepEqual(await runTool(m.tools(), "mcp_fx_add", { a: 1, b: 2 }), { content: "3" });
  });
});

Deno.test("failed, hung, misconfigured and disabled servers; required → ToolInfraError", async () => {
  const servers: Record<string, McpServerConfig> = {
    bad: { command: "bash", args: ["-c", "echo boom >&2; exit 3"], required: true },
    missing: { command: "mopac-no-such-command" },
    mute: { command: "sleep", args: ["30"], start_timeout: 0.3 },
    nourl: { type: "http" },
    off: { disabled: true, command: "whatever" },
    fx: fixtureStdio({ enabled_tools: ["echo", "add"] }),
  };
  await withManager(servers, (m) => {
    const byName = Object.fromEntries(m.statuses().map((s) => [s.name, s]));
    assert.equal(byName.bad.status, "failed");
    assert.match(byName.bad.error!, /exited with code 3; stderr: boom/);
    assert.equal(byName.missing.error, "command not found: mopac-no-such-command");
    assert.match(byName.mute.error!, /did not become ready within 0\.3s/);
    assert.deepEqual(byName.nourl, {
      name: "nourl",
      status: "failed",
      tools: 0,
      error: "http server has no `url`",
    });
    assert.deepEqual(byName.off, { name: "off", status: "disabled", tools: 0 });
    assert.deepEqual(byName.fx, { name: "fx", status: "connected", tools: 2 });
    assert.deepEqual(m.tools().map((t) => t.name).sort(), ["mcp_fx_add", "mcp_fx_echo"]);
    assert.throws(() => m.assertRequired(), (err: unknown) => {
      assert.ok(err instanceof ToolInfraError);
      assert.match(err.message, /required MCP server "bad" is not available: .*boom/);
      return true;
    });
    return Promise.resolve();
  });
});

Deno.test("disabled_tools filters; optional failures do not trip assertRequired", async () => {
  const servers = {
    fx: fixtureStdio({ disabled_tools: ["crash", "hang"], required: true }),
    gone: { command: "mopac-no-such-command" },
  };
  await withManager(servers, (m) => {
    m.assertRequired();
    const names = m.tools().map((t) => t.name);
    assert.equal(names.length, 12);
    assert.ok(!names.includes("mcp_fx_crash") && !names.includes("mcp_fx_hang"));
    return Promise.resolve();
  });
});

Deno.test("tools/list_changed is applied between turns by refresh()", async () => {
  await withManager({ fx: fixtureStdio() }, async (m) => {
    assert.deepEqual(await runTool(m.tools(), "mcp_fx_add_tool"), { content: "added" });
    await waitFor(() => m.connection("fx")!.toolsChanged);
    assert.ok(!m.tools().some((t) => t.name === "mcp_fx_late"), "not applied mid-turn");
    assert.equal(await m.refresh(), true);
    assert.deepEqual(await runTool(m.tools(), "mcp_fx_late"), { content: "late" });
    assert.equal(await m.refresh(), false);
  });
});

Deno.test("a lost HTTP session is re-initialised and the call retried", async () => {
  const server = await startFixtureHttp("http");
  try {
    await withManager({ web: { type: "http", url: server.url } }, async (m, logs) => {
      await runTool(m.tools(), "mcp_web_drop_sessions");
      await waitFor(() => server.sessionCount() === 0);
      assert.deepEqual(await runTool(m.tools(), "mcp_web_echo", { text: "again" }), {
        content: "again",
      });
      assert.ok(
        logs.some((l) => /mcp web: reconnecting.*Session not found/.test(l)),
        logs.join("\n"),
      );
    });
  } finally {
    await server.close();
  }
});

Deno.test("elicitation: accepted with defaults when they cover the required fields", async () => {
  await withManager({ fx: fixtureStdio() }, async (m) => {
    const yes = await runTool(m.tools(), "mcp_fx_ask", { withDefaults: true });
    assert.deepEqual(JSON.parse(yes.content), { action: "accept", content: { colour: "blue" } });
    const no = await runTool(m.tools(), "mcp_fx_ask", { withDefaults: false });
    assert.deepEqual(JSON.parse(no.content), { action: "decline" });
  });
});

Deno.test("roots are offered only when configured", async () => {
  await withManager({ fx: fixtureStdio() }, async (m) => {
    const none = await runTool(m.tools(), "mcp_fx_roots");
    assert.equal(none.is_error, true);
  });
  const dir = await Deno.makeTempDir();
  await withManager({ fx: fixtureStdio() }, async (m) => {
    const roots = JSON.parse((await runTool(m.tools(), "mcp_fx_roots")).content);
    assert.deepEqual(roots, [{ uri: `file://${dir}`, name: dir.split("/").pop() }]);
  }, { roots: [dir] });
  await Deno.remove(dir);
});

Deno.test("configured headers reach HTTP and SSE servers on every request", async () => {
  for (const kind of ["http", "sse"] as const) {
    const server = await startFixtureHttp(kind, { token: "s3cret" });
    try {
      const headers = { Authorization: "Bearer s3cret" };
      await withManager({
        good: { type: kind, url: server.url, headers },
        bad: { type: kind, url: server.url, headers: { Authorization: "Bearer nope" } },
      }, async (m) => {
        const [good, bad] = m.statuses();
        assert.equal(good.status, "connected", good.error);
        assert.equal(bad.status, "failed");
        assert.match(bad.error!, /401|unauthorized|Unauthorized/);
        assert.deepEqual(await runTool(m.tools(), "mcp_good_echo", { text: kind }), {
          content: kind,
        });
      });
    } finally {
      await server.close();
    }
  }
});
