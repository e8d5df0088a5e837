/**
 * The jail's lifetime is the run's: processes the model started, background jobs
 * and `cmd &` leftovers alike, are gone after the run ends and after a SIGKILL of
 * mopac (bwrap's --die-with-parent, then the PID namespace ends with its init).
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { noJail } from "../_support/jail.ts";
import { startLive } from "./_live.ts";
import { waitFor } from "../_support/wait.ts";
import { workspace } from "../_support/workspace.ts";

/** Host processes whose command line holds `marker`. */
async function processesWith(marker: string): Promise<string[]> {
  // -ww: never cut to $COLUMNS (a workspace path sits far into bwrap's arguments).
  const out = await new Deno.Command("ps", { args: ["-ww", "-eo", "pid,args"] }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) =>
    l.includes(marker) && !l.includes("ps -eo")
  );
}

/** The command lines of `pid`'s children, whole. */
async function childArgs(pid: number): Promise<string[]> {
  const out = await new Deno.Command("ps", {
    args: ["-ww", "-o", "args=", "--ppid", String(pid)],
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n");
}

/** A bwrap command line that mounts `dir`. */
const jailOf = (line: string, dir: string) =>
  /^\S*bwrap /.test(line) && line.split(" ").includes(dir);

Deno.test({
  name: "jail lifetime: nothing the model started survives a SIGKILL of mopac",
  ignore: noJail("SIGKILL of mopac ends the jail"),
  async fn() {
    const marker = `mopac-survivor-${crypto.randomUUID().slice(0, 8)}`;
    await using ws = await workspace({
      turns: [
        scriptToolCall("bash", {
          command: `exec -a ${marker}-job sleep 300`,
          run_in_background: true,
        }),
        scriptToolCall("bash", { command: `(exec -a ${marker}-left sleep 300) & echo started` }),
        scriptToolCall("bash", {
          command: `setsid bash -c "exec -a ${marker}-setsid sleep 300" &`,
        }),
        // The run then hangs on a slow answer while the test kills it.
        scriptText("never seen", { delayMs: 60_000 }),
      ],
    });
    const live = startLive(ws.spawn(["run", "-o", "stream-json", "start things"]));
    try {
      await live.waitFor(
        (e) =>
          e.type === "tool_result" &&
          live.events.filter((x) => x.type === "tool_result").length === 3,
        "three tool results",
      );
      await waitFor(async () => (await processesWith(marker)).length >= 3, "three sleepers");
      await live.kill();
      await waitFor(async () => (await processesWith(marker)).length === 0, "no survivor");
      assert.deepEqual(await processesWith(marker), []);
    } finally {
      await live.kill();
    }
  },
});

Deno.test({
  name: "jail lifetime: a run that ends leaves no process behind",
  ignore: noJail("a finished run ends its jail"),
  async fn() {
    const marker = `mopac-leftover-${crypto.randomUUID().slice(0, 8)}`;
    await using ws = await workspace({
      turns: [
        scriptToolCall("bash", {
          command: `exec -a ${marker}-job sleep 300`,
          run_in_background: true,
        }),
        scriptToolCall("bash", { command: `(exec -a ${marker}-left sleep 300) & echo started` }),
        scriptText("done"),
      ],
    });
    const live = startLive(ws.spawn(["run", "-o", "stream-json", "start things"]));
    const end = await live.done();
    assert.equal(end.code, 0, end.stderr);
    assert.deepEqual(await processesWith(marker), []);
  },
});

Deno.test({
  name: "jail lifetime: the jail starts while the model's bash call is still streaming",
  ignore: noJail("the jail's early start"),
  async fn() {
    await using ws = await workspace({
      turns: [
        // The call's name, then nothing until the test is done: a slow model.
        scriptToolCall("bash", { command: "echo hi" }, "c1", {
          fault: { stallAfterChunks: 2, stallMs: 120_000 },
        }),
      ],
    });
    const live = startLive(ws.spawn(["run", "-o", "stream-json", "say hi"]));
    try {
      // mopac's bwrap child, whose arguments name the workspace it binds; without the head
      // start the jail would start only after the call arrived, which the stall holds back.
      await waitFor(
        async () => (await childArgs(live.child.pid)).some((l) => jailOf(l, ws.dir)),
        "the jail's bwrap during the stream",
      );
      assert.equal(live.events.filter((e) => e.type === "tool_call").length, 0);
    } finally {
      await live.kill();
    }
    await waitFor(async () => (await processesWith(ws.dir)).length === 0, "the jail's end");
  },
});
