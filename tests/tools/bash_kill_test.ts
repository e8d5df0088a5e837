/**
 * Timeout, cancel and shutdown end the command's whole process tree: checked with
 * `ps` by process group, since a shell's children survive a kill of the shell alone.
 */
import assert from "node:assert/strict";
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { testToolContext } from "../_support/tool_context.ts";
import { DENO_RUN } from "../_support/deps.ts";

function context(ws: string, signal = new AbortController().signal): ToolContext {
  return testToolContext(ws, { session_id: "s1", signal, shellCwd: "" });
}

/** Processes still in process group `pgid` (from `ps`). */
async function groupMembers(pgid: number): Promise<string[]> {
  const out = await new Deno.Command("ps", {
    args: ["-eo", "pid=,pgid=,stat=,args="],
    stdout: "piped",
  })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid && !f[2]?.startsWith("Z"))
    .map((f) => f.join(" "));
}

/** The command prints bash's pid ($$), which is its process group id. */
const TREE = "echo pgid=$$; sleep 311 & sleep 312 & (sleep 313; echo never) & wait";
const pgidOf = (text: string) => Number(text.match(/pgid=(\d+)/)?.[1]);

async function eventuallyEmpty(pgid: number): Promise<string[]> {
  // SIGKILL is delivered at once; give the kernel a moment to reap.
  for (let i = 0; i < 20; i++) {
    const left = await groupMembers(pgid);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await groupMembers(pgid);
}

Deno.test("a timeout kills the whole process tree and returns the partial output", async () => {
  const ws = await Deno.makeTempDir();
  const jobs = new JobManager();
  try {
    const tool = createBashTool({ jobs });
    const out = await tool.run(tool.parse({ command: TREE, timeout: 400 }), context(ws));
    assert.equal(out.is_error, true);
    assert.match(out.content, /timed out after 400 ms/);
    const pgid = pgidOf(out.content);
    assert.ok(pgid > 0, out.content);
    assert.deepEqual(await eventuallyEmpty(pgid), []);
  } finally {
    await jobs.dispose();
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("cancelling the call (abort) kills the whole process tree", async () => {
  const ws = await Deno.makeTempDir();
  const jobs = new JobManager();
  try {
    const tool = createBashTool({ jobs });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const out = await tool.run(tool.parse({ command: TREE }), context(ws, ac.signal));
    assert.equal(out.is_error, true);
    assert.match(out.content, /cancelled/);
    assert.deepEqual(await eventuallyEmpty(pgidOf(out.content)), []);
  } finally {
    await jobs.dispose();
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("dispose kills running jobs and children left behind by finished commands", async () => {
  const ws = await Deno.makeTempDir();
  const jobs = new JobManager();
  try {
    const tool = createBashTool({ jobs, startupWaitMs: 100 });
    const ctx = context(ws);
    const left = await tool.run(tool.parse({ command: "echo pgid=$$; sleep 314 &" }), ctx);
    assert.match(left.content, /still running/);
    const job = await tool.run(tool.parse({ command: TREE, run_in_background: true }), ctx);
    assert.match(job.content, /Started background job job-\d+/);
    const pgids = [pgidOf(left.content), pgidOf(job.content)];
    for (const pgid of pgids) assert.notDeepEqual(await groupMembers(pgid), []);
    await jobs.dispose();
    for (const pgid of pgids) assert.deepEqual(await eventuallyEmpty(pgid), []);
  } finally {
    await jobs.dispose();
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("under a narrow --allow-run=bash the group is killed through bash's kill", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/probe.ts`;
    const proc = new URL("../../src/tools/shell/process.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { ShellProcess } from "${proc}";
let direct = "allowed";
try { Deno.kill(-1, "SIGCONT"); } catch (e) { direct = (e as Error).name; }
const p = new ShellProcess({ command: ${JSON.stringify(TREE)}, cwd: ${JSON.stringify(dir)},
  env: { PATH: "/usr/bin:/bin" }, timeoutMs: 300 });
await p.finished;
console.log(JSON.stringify({ direct, out: p.output.text(), stoppedBy: p.stoppedBy }));
`,
    );
    const res = await new Deno.Command(Deno.execPath(), {
      args: [...DENO_RUN, "--no-prompt", "--allow-run=bash", script],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(res.code, 0, new TextDecoder().decode(res.stderr));
    const report = JSON.parse(new TextDecoder().decode(res.stdout));
    assert.equal(report.direct, "NotCapable", "Deno.kill is not allowed under this grant");
    assert.equal(report.stoppedBy, "timeout");
    assert.deepEqual(await eventuallyEmpty(pgidOf(report.out)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
