/**
 * Background jobs: start, output, finish, kill, auto-background, and their errors.
 * Commands that must still run at a given moment wait for a `go` file the test
 * creates, not for a sleep to outlast the test's own steps.
 */
import assert from "node:assert/strict";
import { createBashTool } from "../../src/tools/bash.ts";
import { createJobKillTool } from "../../src/tools/job_kill.ts";
import { createJobOutputTool } from "../../src/tools/job_output.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import type { Tool, ToolContext, ToolOutput } from "../../src/tools/types.ts";
import { testToolContext } from "../_support/tool_context.ts";

interface Harness {
  /** Lets commands waiting on `$GO` go on. */
  go(): Promise<void>;
  bash(command: string, extra?: Record<string, unknown>): Promise<ToolOutput>;
  output(id: string, extra?: Record<string, unknown>): Promise<ToolOutput>;
  kill(id: string): Promise<ToolOutput>;
  ctx: ToolContext;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Holds a command until the test calls `go()`. */
const UNTIL_GO = "until [ -e go ]; do sleep 0.01; done";

/**
 * `startupWaitMs` is how long a background start waits for an early end: a command
 * that ends at once must end within it, so it is generous; a test whose job keeps
 * running pays it in full, so those give a short one.
 */
async function harness(
  opts: { backgroundAfterMs?: number; startupWaitMs?: number } = {},
): Promise<Harness> {
  const ws = await Deno.makeTempDir();
  const jobs = new JobManager();
  const bash = createBashTool({ jobs, startupWaitMs: 10_000, ...opts });
  const output = createJobOutputTool({ jobs });
  const kill = createJobKillTool({ jobs });
  const ctx: ToolContext = testToolContext(ws, { session_id: "s1", shellCwd: "" });
  const call = (tool: Tool, input: Record<string, unknown>) => tool.run(tool.parse(input), ctx);
  return {
    ctx,
    go: () => Deno.writeTextFile(`${ws}/go`, ""),
    bash: (command, extra = {}) => call(bash, { command, ...extra }),
    output: (shell_id, extra = {}) => call(output, { shell_id, ...extra }),
    kill: (shell_id) => call(kill, { shell_id }),
    async [Symbol.asyncDispose]() {
      await jobs.dispose();
      await Deno.remove(ws, { recursive: true });
    },
  };
}

const jobId = (text: string) => text.match(/job-\d+/)?.[0] ?? assert.fail(`no job id in: ${text}`);

Deno.test("run_in_background: start, read new output, wait for the end", async () => {
  // The job runs until go(): its start report comes after the full startup wait, by
  // when `first` is out.
  await using h = await harness({ startupWaitMs: 1_000 });
  const started = await h.bash(`echo first; ${UNTIL_GO}; echo second; exit 3`, {
    run_in_background: true,
  });
  assert.match(started.content, /^Started background job job-\d+\./);
  assert.match(started.content, /Output so far:\nfirst/);
  const id = jobId(started.content);

  const running = await h.output(id);
  assert.match(
    running.content,
    new RegExp(`^Job ${id} \\(\`echo first; until \\[.*\`\\): running for \\d+ s`),
  );
  assert.match(running.content, /\(no new output\)$/);

  await h.go();
  const done = await h.output(id, { wait: true, timeout_seconds: 60 });
  assert.match(done.content, /exited with code 3/);
  assert.equal(done.content.split("\n\n")[1], "second", "only output not returned before");
});

Deno.test("run_in_background reports a command that fails at once", async () => {
  await using h = await harness();
  const out = await h.bash("echo boom; exit 7", { run_in_background: true });
  assert.equal(out.content, "boom\n\nExit code 7");
  assert.equal(out.is_error, true);
});

Deno.test("job_kill stops a running job and reports it", async () => {
  await using h = await harness({ startupWaitMs: 100 });
  const started = await h.bash("echo up; sleep 300", { run_in_background: true });
  const id = jobId(started.content);
  const killed = await h.kill(id);
  assert.match(
    killed.content,
    new RegExp(`^Job ${id} was stopped\\.\\nJob ${id} .*: killed by job_kill`),
  );
  const after = await h.output(id);
  assert.match(after.content, /killed by job_kill/);
  const again = await h.kill(id);
  assert.match(again.content, /had already ended/);
});

Deno.test("a foreground command that runs too long becomes a job", async () => {
  // It runs until go(), so it is moved after the full second, by when `early` is out.
  await using h = await harness({ backgroundAfterMs: 1_000 });
  const moved = await h.bash(`echo early; ${UNTIL_GO}; echo late`);
  assert.match(moved.content, /still running and was moved to the background as job job-\d+/);
  assert.match(moved.content, /Output so far:\nearly/);
  await h.go();
  const done = await h.output(jobId(moved.content), { wait: true, timeout_seconds: 60 });
  assert.match(done.content, /exited with code 0\n\nlate$/);
});

Deno.test("auto_background_after is per call and the timeout still applies to the job", async () => {
  await using h = await harness({ startupWaitMs: 100 });
  const moved = await h.bash("sleep 300", { auto_background_after: 1, timeout: 1500 });
  const id = jobId(moved.content);
  const done = await h.output(id, { wait: true, timeout_seconds: 60 });
  assert.match(done.content, /killed: it ran past its timeout/);
});

Deno.test("unknown job ids are tool errors that list the known ones", async () => {
  await using h = await harness({ startupWaitMs: 100 });
  const none = await h.output("job-99");
  assert.equal(none.is_error, true);
  assert.match(none.content, /No background job with id "job-99"\. There are no background jobs\./);
  const started = await h.bash("sleep 300", { run_in_background: true });
  const kill = await h.kill("nope");
  assert.match(kill.content, new RegExp(`Known jobs: ${jobId(started.content)}`));
});
