/**
 * Timeout, cancel and shutdown end the command's whole process tree: checked with
 * `ps` by process group, since a shell's children survive a kill of the shell alone.
 * Every test first sees the group with its children (the command writes its pgid to
 * a file once they are started), so none can pass by killing a tree that never grew.
 */
import assert from "node:assert/strict";
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { testToolContext } from "../_support/tool_context.ts";
import { DENO_RUN } from "../_support/deps.ts";
import { waitFor, waitForValue } from "../_support/wait.ts";

function context(ws: string, signal = new AbortController().signal): ToolContext {
  return testToolContext(ws, { session_id: "s1", signal, shellCwd: "" });
}

/** Processes still in process group `pgid` (from `ps`). */
async function groupMembers(pgid: number): Promise<string[]> {
  assert.ok(Number.isInteger(pgid) && pgid > 0, `not a process group id: ${pgid}`);
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

/**
 * A tree of bash, three sleeps and a subshell. It prints bash's pid ($$, its process
 * group id), and once every child runs writes it to `<dir>/<tag>.ready`.
 */
const tree = (dir: string, tag: string) =>
  `echo pgid=$$; sleep 311 & sleep 312 & (sleep 313; echo never) & ` +
  `echo $$ > ${dir}/${tag}.tmp && mv ${dir}/${tag}.tmp ${dir}/${tag}.ready; wait`;
const pgidOf = (text: string) => Number(text.match(/pgid=(\d+)/)?.[1]);

/** The pgid once the tree is complete: bash, the subshell and three sleeps are running. */
async function grownTree(dir: string, tag: string): Promise<number> {
  const pgid = await waitForValue(async () => {
    const text = await Deno.readTextFile(`${dir}/${tag}.ready`).catch(() => "");
    return text.endsWith("\n") ? Number(text) : undefined;
  }, `${tag}.ready`);
  // The subshell is forked before the file is written, but its own `sleep` may start
  // a moment later: wait for all three rather than look once.
  await waitFor(
    async () => (await groupMembers(pgid)).filter((m) => / sleep 31[123]$/.test(m)).length === 3,
    `three sleeps in group ${pgid}`,
  );
  return pgid;
}

async function eventuallyEmpty(pgid: number): Promise<void> {
  // SIGKILL is delivered at once; the kernel may take a moment to reap.
  await waitFor(async () => (await groupMembers(pgid)).length === 0, `group ${pgid} to empty`);
}

Deno.test("a timeout kills the whole process tree and returns the partial output", async () => {
  const ws = await Deno.makeTempDir();
  const jobs = new JobManager();
  try {
    const tool = createBashTool({ jobs });
    // Generous, so the tree is complete long before it fires even on a loaded machine.
    const running = tool.run(tool.parse({ command: tree(ws, "t"), timeout: 3000 }), context(ws));
    const pgid = await grownTree(ws, "t");
    const out = await running;
    assert.equal(out.is_error, true);
    assert.match(out.content, /timed out after 3000 ms/);
    assert.equal(pgidOf(out.content), pgid, out.content);
    await eventuallyEmpty(pgid);
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
    const running = tool.run(tool.parse({ command: tree(ws, "a") }), context(ws, ac.signal));
    const pgid = await grownTree(ws, "a");
    ac.abort();
    const out = await running;
    assert.equal(out.is_error, true);
    assert.match(out.content, /cancelled/);
    assert.equal(pgidOf(out.content), pgid, out.content);
    await eventuallyEmpty(pgid);
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
    const job = await tool.run(
      tool.parse({ command: tree(ws, "j"), run_in_background: true }),
      ctx,
    );
    assert.match(job.content, /Started background job job-\d+/);
    const pgids = [pgidOf(left.content), await grownTree(ws, "j")];
    for (const pgid of pgids) assert.notDeepEqual(await groupMembers(pgid), []);
    await jobs.dispose();
    for (const pgid of pgids) await eventuallyEmpty(pgid);
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
const p = new ShellProcess({ command: ${JSON.stringify(tree(dir, "n"))},
  cwd: ${JSON.stringify(dir)}, env: { PATH: "/usr/bin:/bin" }, timeoutMs: 3000 });
await p.finished;
console.log(JSON.stringify({ direct, out: p.output.text(), stoppedBy: p.stoppedBy }));
`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [...DENO_RUN, "--no-prompt", "--allow-run=bash", script],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const pgid = await grownTree(dir, "n");
    const res = await child.output();
    assert.equal(res.code, 0, new TextDecoder().decode(res.stderr));
    const report = JSON.parse(new TextDecoder().decode(res.stdout));
    assert.equal(report.direct, "NotCapable", "Deno.kill is not allowed under this grant");
    assert.equal(report.stoppedBy, "timeout");
    assert.equal(pgidOf(report.out), pgid, report.out);
    await eventuallyEmpty(pgid);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
