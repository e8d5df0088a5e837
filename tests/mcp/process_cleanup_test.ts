/**
 * No server process outlives mopac: not after close(), not when mopac exits without
 * closing, and not when the server was started through `bash -c` with grandchildren.
 * Checked with `ps`; zombies (stat Z) are dead already and only wait for init.
 */
import assert from "node:assert/strict";
import { createMcpManager } from "../../src/mcp/manager.ts";
import { FIXTURE, processesMatching } from "../_support/mcp_helpers.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";
import { waitFor } from "../_support/wait.ts";

/** `ps` rows as [pid, pgid, stat, args]. */
async function psRows(): Promise<string[][]> {
  const lines = await processesMatching("");
  return lines.map((l) => l.trim().split(/\s+/)).filter((r) => /^\d+$/.test(r[0]))
    .map((r) => [r[0], r[1], r[2], r.slice(3).join(" ")]);
}

Deno.test("a server started through bash -c leaves no process after close()", async () => {
  const marker = `${Math.floor(Math.random() * 1e6)}.123`;
  const logDir = await Deno.makeTempDir();
  const m = createMcpManager({
    wrapped: {
      command: "bash",
      // `; wait` keeps bash as the parent, so the server and `sleep` are grandchildren.
      args: [
        "-c",
        `sleep ${marker} & "${Deno.execPath()}" ${DENO_RUN.join(" ")} -A ${FIXTURE} stdio; wait`,
      ],
      start_timeout: START_TIMEOUT_S,
    },
  }, { logDir });
  let group: string[][] = [];
  try {
    assert.equal((await m.start())[0].status, "connected");
    const sleeper = (await psRows()).find((r) => r[3] === `sleep ${marker}`);
    assert.ok(sleeper, "the grandchild sleep runs");
    group = (await psRows()).filter((r) => r[1] === sleeper[1]);
    const commands = group.map((r) => r[3].split(" ")[0].split("/").pop()).sort();
    assert.deepEqual(commands, ["bash", Deno.execPath().split("/").pop(), "sleep"].sort());
  } finally {
    await m.close();
    await Deno.remove(logDir, { recursive: true });
  }
  // Zombies (stat Z) are dead already; they only wait for init to reap them.
  const left = (await psRows()).filter((r) => r[1] === group[0][1] && !r[2].startsWith("Z"));
  assert.deepEqual(left, []);
});

Deno.test("exiting without close() still ends the server's whole group", async () => {
  const marker = `${Math.floor(Math.random() * 1e6)}.456`;
  const logDir = await Deno.makeTempDir();
  const script = new URL("../_support/mcp_exit_without_close.ts", import.meta.url).pathname;
  // Narrow --allow-run: Deno.kill(-pgid) is not allowed, the bash fallback is used.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      ...DENO_RUN,
      "--allow-run=bash",
      "--allow-read",
      "--allow-write",
      script,
      marker,
      logDir,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout), "exiting\n");
  // SIGKILL went out before the exit; a killed process may still show for a moment.
  const left = async () =>
    (await psRows()).filter((r) => r[3] === `sleep ${marker}` && !r[2].startsWith("Z"));
  await waitFor(async () => (await left()).length === 0, `no sleep ${marker} left`, 10_000)
    .catch(async (err) => assert.fail(`${err.message}: ${JSON.stringify(await left())}`));
  await Deno.remove(logDir, { recursive: true });
});
