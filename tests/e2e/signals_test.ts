/**
 * Signals at the edges the scan does not reach: a run whose cleanup does not finish
 * (an MCP server group that ignores SIGTERM) is ended after the grace period with its
 * session saved and unlocked and its `cancelled` result written; a run waiting for a
 * prompt on a stdin that never closes ends at once; a second run resumes the session.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events, runMopac, spawnMopac } from "../_support/run_mopac.ts";
import { FIXTURE } from "../_support/mcp_helpers.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";
import { cleanup, DENO, eventStream, live, mcpWorkspace } from "./_mcp_run.ts";
import { catches } from "./_signal_scan.ts";

Deno.test({
  name: "e2e signals: cleanup that hangs is cut after the grace period; result and session kept",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.1605`;
    // The server's group ignores SIGTERM (an ignored signal stays ignored in children), so
    // closing it takes mopac's full TERM-then-KILL wait: longer than the grace period.
    const stubborn = {
      command: "bash",
      args: [
        "-c",
        `trap '' TERM; sleep ${marker} & "${DENO}" ${DENO_RUN.join(" ")} -A ${FIXTURE} stdio; wait`,
      ],
      enabled_tools: ["echo", "hang"],
      // Generous: the server starts slowly on a loaded machine, and the hanging call
      // ends when the test stops mopac, not on a per-call timer.
      start_timeout: START_TIMEOUT_S,
      timeout: START_TIMEOUT_S,
    };
    const ws = await mcpWorkspace(
      [scriptToolCall("mcp_stubborn_hang", {}), scriptText("resumed fine")],
      { stubborn },
    );
    const child = spawnMopac(["run", "-o", "stream-json", "go"], {
      cwd: ws.dir,
      perms: ws.perms,
      env: FAKE_ENV,
    });
    try {
      const stream = eventStream(child);
      const init = await stream.until((e) => e.type === "init");
      await stream.until((e) => e.type === "tool_call");
      const t0 = performance.now();
      child.kill("SIGTERM");
      const { code, events: rest, stderr } = await stream.finish();
      const ms = performance.now() - t0;
      assert.equal(code, 143, stderr);
      assert.match(stderr, /mopac: not stopped within 5 s of SIGTERM; ending now\n$/);
      assert.ok(ms < 9_000, `took ${ms} ms`);
      const result = rest.at(-1)!;
      assert.deepEqual([result.type, result.subtype, result.exit_code, result.session_id], [
        "result",
        "cancelled",
        143,
        init.session_id,
      ]);
      assert.equal(result.num_turns, 1);
      // The unload handler killed what the cut-short close left running.
      assert.deepEqual(await live(marker), []);
      // The session was saved and unlocked: the next run (without the server) continues it.
      const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
      delete config.mcp;
      await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
      const next = await runMopac(["run", "-C", "-o", "json", "go on"], {
        cwd: ws.dir,
        perms: ws.perms,
        env: FAKE_ENV,
      });
      const [after] = events(next.stdout);
      assert.equal(next.code, 0, next.stderr);
      assert.equal(after.session_id, init.session_id);
      assert.equal(after.result, "resumed fine");
    } finally {
      await cleanup(child, marker);
      await ws.close();
    }
  },
});

Deno.test({
  name: "e2e signals: waiting for a prompt on stdin that never closes, SIGINT ends it at once",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const ws = await workspace({ turns: [scriptText("never")] });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        ...DENO_RUN,
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        "run",
        "-o",
        "json",
      ],
      cwd: ws.dir,
      env: FAKE_ENV,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      // Part of a prompt arrives; the writer never closes the pipe.
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("half a prompt"));
      await waitForListener(child.pid);
      child.kill("SIGINT");
      const out = await child.output();
      const [result] = events(new TextDecoder().decode(out.stdout));
      assert.equal(out.code, 130);
      assert.deepEqual([result.subtype, result.exit_code], ["cancelled", 130]);
      assert.equal(ws.fake.requests.length, 0);
      await writer.close().catch(() => {});
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // Exited.
      }
      await ws.close();
    }
  },
});

/** Waits until the process listens for SIGINT. */
async function waitForListener(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (catches(pid, "SIGINT") === false) {
    if (Date.now() > deadline) throw new Error("mopac never listened for SIGINT");
    await new Promise((r) => setTimeout(r, 20));
  }
}
