/**
 * The bash tool behind the real tool runner and permission gate: a denied script
 * runs no part of itself, and the denial names the command and the rule.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import { createBashTool } from "../../src/tools/bash.ts";
import { createToolRunner } from "../../src/agent/tool_runner.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import { directLauncher } from "../../src/jail/direct.ts";
import type { ShellLauncher } from "../../src/jail/types.ts";

async function setup(
  agent: string | undefined,
  bash?: { allow?: string[]; deny?: string[] },
  launcher?: ShellLauncher,
) {
  const ws = await Deno.realPath(await Deno.makeTempDir());
  const jobs = new JobManager();
  const profile = resolveProfile(agent, {
    agents: bash ? { fixer: { allowed_tools: ["bash"], bash } } : {},
  });
  const runner = createToolRunner({
    tools: () => [createBashTool({ jobs, launcher })],
    gate: createGate({ profile, workspace: ws }),
    context: {
      session_id: "s1",
      workspace: ws,
      state: { viewed: new Map(), todos: [], shell: { cwd: "", env: {} } },
      env: {},
      attachments: false,
      recordChange() {},
      stateChanged() {},
    },
    summarize: (input) => JSON.stringify(input),
  });
  let n = 0;
  const call = (command: string) =>
    runner.run(
      { type: "tool_call", id: `c${++n}`, name: "bash", input: JSON.stringify({ command }) },
      new AbortController().signal,
    );
  return {
    ws,
    call,
    runner,
    async [Symbol.asyncDispose]() {
      await jobs.dispose();
      await Deno.remove(ws, { recursive: true });
    },
  };
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("coder profile: banned commands are refused before anything runs", async () => {
  await using s = await setup(undefined);
  const denied = await s.call("touch marker && c\\url -s http://127.0.0.1:9/");
  assert.equal(denied.result.is_error, true);
  assert.equal(denied.result.denied, true);
  assert.equal(denied.denial?.rule, "ban:network");
  assert.match(denied.result.content, /`curl` is banned/);
  assert.equal(await exists(join(s.ws, "marker")), false, "no part of a denied script runs");

  const ok = await s.call("touch marker && echo made");
  assert.equal(ok.result.content, "made");
  assert.equal(await exists(join(s.ws, "marker")), true);
});

Deno.test("a profile's bash patterns decide, deny before allow", async () => {
  await using s = await setup("fixer", { allow: ["echo*", "git status"], deny: ["git push*"] });
  assert.equal((await s.call("cd . && echo fine")).result.content, "fine");
  const notListed = await s.call("echo x && rm -rf dist");
  assert.equal(notListed.denial?.rule, "bash.allow");
  const pushed = await s.call("git status; git push");
  assert.equal(pushed.denial?.rule, "bash.deny:git push*");
});

/** The direct launcher, noting each prepare and spawn in `seen`. */
function recordingLauncher(): { seen: string[]; launcher: ShellLauncher } {
  const seen: string[] = [];
  const launcher: ShellLauncher = {
    ...directLauncher,
    prepare: () => {
      seen.push("prepare");
      return Promise.resolve();
    },
    spawn: (spec) => {
      seen.push("spawn");
      return directLauncher.spawn(spec);
    },
  };
  return { seen, launcher };
}

Deno.test("the launcher is prepared when a command is checked; a denied one spawns nothing", async () => {
  const { seen, launcher } = recordingLauncher();
  await using s = await setup(undefined, undefined, launcher);
  const denied = await s.call("c\\url -s http://127.0.0.1:9/");
  assert.equal(denied.result.denied, true);
  assert.deepEqual(seen, ["prepare"], "prepared before the gate, nothing spawned");
  const ok = await s.call("echo made");
  assert.equal(ok.result.is_error, false);
  assert.deepEqual(seen, ["prepare", "prepare", "spawn"]);
});

Deno.test("a bash call that starts streaming warms the launcher, where bash is offered", async () => {
  const { seen, launcher } = recordingLauncher();
  await using s = await setup(undefined, undefined, launcher);
  s.runner.warm("bash");
  assert.deepEqual(seen, ["prepare"], "warmed: prepared, nothing spawned");
  s.runner.warm("no_such_tool");
  assert.deepEqual(seen, ["prepare"]);

  await using reader = await setup("task", undefined, launcher);
  reader.runner.warm("bash");
  assert.deepEqual(seen, ["prepare"], "bash not offered: nothing warmed");
});

Deno.test("a warm-up that throws or rejects leaves the runner and the call unharmed", async () => {
  let warms = 0;
  const broken: ShellLauncher = {
    ...directLauncher,
    // Fails at the two warm-ups only (the gate's own prepare must work for the call to run);
    // a rejection nobody handled would fail this test as uncaught.
    prepare: () => {
      warms++;
      if (warms === 1) throw new Error("no jail today");
      if (warms === 2) return Promise.reject(new Error("no jail tomorrow"));
      return Promise.resolve();
    },
  };
  await using s = await setup(undefined, undefined, broken);
  s.runner.warm("bash");
  s.runner.warm("bash");
  assert.equal(warms, 2);
  await new Promise((r) => setTimeout(r, 0));
  const ok = await s.call("echo still");
  assert.equal(ok.result.content, "still");
});
