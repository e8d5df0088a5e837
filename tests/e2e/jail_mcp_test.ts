/**
 * An MCP stdio server marked `sandbox: true` runs under the jail's rules: no
 * network, no writes outside the workspace, denied files hidden, its own PID
 * namespace, and an environment built from scratch (no provider key, no CI secret).
 * An unmarked server stays the operator's and runs unjailed, with the clean base
 * environment plus what its config passes (here the CI secret, by `env_vars`).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { noJail } from "../_support/jail.ts";
import { listen, outsideTmp } from "./_jail.ts";
import { workspace } from "../_support/workspace.ts";
import { DENO_RUN, denoDir, START_TIMEOUT_S } from "../_support/deps.ts";

const SERVER = fileURLToPath(new URL("./_mcp_probe_server.ts", import.meta.url));
const CI_SECRET = `ci-secret-${crypto.randomUUID()}`;

Deno.test({
  name: "jail mcp: a sandboxed server has no network, no outside writes, no secrets",
  ignore: noJail("MCP servers in the jail"),
  async fn() {
    const tcp = listen();
    const outside = await outsideTmp("mopac-mcp-out-");
    const args = { port: tcp.port, write: `${outside}/planted`, read: ".env" };
    const server = (sandbox: boolean) => ({
      command: Deno.execPath(),
      args: [...DENO_RUN, "-A", SERVER],
      start_timeout: START_TIMEOUT_S,
      // The test run's Deno cache; inside the jail it stays visible even under /tmp.
      env: { DENO_DIR: denoDir() },
      ...(sandbox ? { sandbox: true } : { env_vars: ["CI_DEPLOY_TOKEN"] }),
    });
    await using ws = await workspace({
      turns: [
        scriptToolCall("mcp_jailed_probe", args),
        scriptToolCall("mcp_free_probe", args),
        scriptText("done"),
      ],
    }, {
      mcp: { jailed: server(true), free: server(false) },
      agents: { coder: { paths: { deny: [".env"] } } },
    });
    try {
      await Deno.writeTextFile(`${ws.dir}/.env`, "TOKEN=hidden-value\n");
      const r = await ws.run(["run", "-o", "stream-json", "probe"], {
        perms: {
          ...ws.perms,
          run: [...ws.perms.run!, Deno.execPath()],
          env: [...ws.perms.env as string[], "CI_DEPLOY_TOKEN"],
        },
        env: { CI_DEPLOY_TOKEN: CI_SECRET },
      });
      assert.equal(r.code, 0, r.stderr);
      const results = events(r.stdout).filter((e) => e.type === "tool_result") as Array<
        { name: string; output: string; is_error: boolean }
      >;
      const jailed = JSON.parse(results.find((x) => x.name === "mcp_jailed_probe")!.output);
      const free = JSON.parse(results.find((x) => x.name === "mcp_free_probe")!.output);
      assert.notEqual(jailed.connect, "connected");
      assert.notEqual(jailed.write, "written");
      assert.notEqual(jailed.read, "TOKEN=hidden-value\n");
      assert.equal(jailed.pid1.trim(), "bwrap", "its own PID namespace");
      assert.ok(!jailed.env.includes(CI_SECRET) && !jailed.env.includes("FAKE_API_KEY"));
      // The unjailed server is the operator's: its network, and what its config passes.
      assert.equal(free.connect, "connected");
      assert.ok(free.env.includes(CI_SECRET), "env_vars passed the CI secret on");
      assert.ok(!free.env.includes("FAKE_API_KEY"), "no provider key reaches it");
      await Deno.remove(`${outside}/planted`).catch(() => {});
      const hits = await tcp.settled();
      assert.equal(
        hits.filter((h) => h === "(connected)").length,
        1,
        "only the free server connected",
      );
    } finally {
      await tcp.close();
      await Deno.remove(outside, { recursive: true }).catch(() => {});
    }
  },
});
