/** The bash tool against real bash in temp dirs: output, exit codes, state carried over. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import type { Tool, ToolContext, ToolOutput } from "../../src/tools/types.ts";
import { ToolInputError } from "../../src/util/errors.ts";

interface Harness {
  ws: string;
  ctx: ToolContext & { changes: number };
  tool: Tool;
  run(command: string, extra?: Record<string, unknown>): Promise<ToolOutput>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function harness(
  opts: Partial<Parameters<typeof createBashTool>[0]> = {},
  env = {},
): Promise<Harness> {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_bash_" }));
  const jobs = new JobManager();
  const tool = createBashTool({ jobs, ...opts });
  const ctx = {
    session_id: "s1",
    workspace: ws,
    state: { viewed: new Map(), todos: [], shell: { cwd: "", env: {} } },
    signal: new AbortController().signal,
    env,
    attachments: false,
    recordChange() {},
    changes: 0,
    stateChanged() {
      ctx.changes++;
    },
  };
  return {
    ws,
    ctx,
    tool,
    run: (command, extra = {}) => tool.run(tool.parse({ command, ...extra }), ctx),
    async [Symbol.asyncDispose]() {
      await jobs.dispose();
      await Deno.remove(ws, { recursive: true });
    },
  };
}

Deno.test("returns output and the exit code; a failing command is an error result", async () => {
  await using h = await harness();
  const ok = await h.run("echo hello");
  assert.deepEqual(ok, { content: "hello" });
  const bad = await h.run("echo out; echo err >&2; exit 4");
  assert.equal(bad.content, "out\nerr\n\nExit code 4");
  assert.equal(bad.is_error, true);
  assert.deepEqual(await h.run("true"), { content: "(no output)" });
});

Deno.test("stdout and stderr arrive interleaved in the order written", async () => {
  await using h = await harness();
  const out = await h.run("for i in 1 2 3; do echo o$i; echo e$i >&2; done");
  assert.equal(out.content, "o1\ne1\no2\ne2\no3\ne3");
});

Deno.test("a bash syntax error comes back as output with bash's exit code", async () => {
  await using h = await harness();
  const out = await h.run("echo never; if then");
  assert.match(out.content, /syntax error/);
  assert.match(out.content, /Exit code 2$/);
});

Deno.test("long output keeps head and tail with a note saying how much was cut", async () => {
  await using h = await harness({ limits: { maxChars: 2_000, maxLines: 100 } });
  const out = await h.run("seq 1 100000");
  assert.match(out.content, /^1\n2\n3\n/);
  assert.match(out.content, /\n100000$/);
  assert.match(out.content, /\[\.\.\. \d+ characters \(\d+ lines\) cut \.\.\.\]/);
  assert.ok(out.content.length < 2_200);
});

Deno.test("working directory and exported variables carry over between calls", async () => {
  await using h = await harness();
  const first = await h.run("mkdir -p sub/deeper && cd sub && export FOO=bar BAZ='a b'; LOCAL=1");
  assert.match(first.content, new RegExp(`current directory is now ${join(h.ws, "sub")}`));
  assert.equal(h.ctx.state.shell.cwd, join(h.ws, "sub"));
  assert.deepEqual(h.ctx.state.shell.env, { FOO: "bar", BAZ: "a b" });
  assert.equal(h.ctx.changes, 1);

  const second = await h.run('pwd; echo "$FOO|$BAZ|${LOCAL:-unset}"');
  assert.equal(second.content, `${join(h.ws, "sub")}\nbar|a b|unset`);
  assert.equal(h.ctx.changes, 1, "nothing changed, nothing to save");

  // working_dir applies to one call and does not move the session.
  const once = await h.run("pwd; cd /", { working_dir: "deeper" });
  assert.equal(once.content, join(h.ws, "sub", "deeper"));
  assert.equal(h.ctx.state.shell.cwd, join(h.ws, "sub"));

  // Changing a variable back to the base value forgets it.
  await h.run("unset BAZ; export FOO=baz");
  assert.deepEqual(h.ctx.state.shell.env, { FOO: "baz" });
});

Deno.test("secret-looking exports are not carried to the next call", async () => {
  await using h = await harness();
  await h.run("export GITHUB_TOKEN=abc MY_API_KEY=k PLAIN=1");
  assert.deepEqual(h.ctx.state.shell.env, { PLAIN: "1" });
  const out = await h.run('echo "${GITHUB_TOKEN:-none} ${MY_API_KEY:-none} $PLAIN"');
  assert.equal(out.content, "none none 1");
});

Deno.test("a command that calls exit still reports its state", async () => {
  await using h = await harness();
  await h.run("cd /tmp; export A=1; exit 3");
  assert.equal(h.ctx.state.shell.cwd, "/tmp");
  assert.deepEqual(h.ctx.state.shell.env, { A: "1" });
});

Deno.test("config env reaches the child, secrets from config included", async () => {
  await using h = await harness({}, { CFG_VAR: "from-config", SERVICE_TOKEN: "t0k3n" });
  const out = await h.run('echo "$CFG_VAR $SERVICE_TOKEN $TERM $GIT_PAGER $NO_COLOR"');
  assert.equal(out.content, "from-config t0k3n dumb cat 1");
});

Deno.test("a missing working directory is a tool error; a vanished session directory is reset", async () => {
  await using h = await harness();
  const bad = await h.run("ls", { working_dir: "nope" });
  assert.equal(bad.is_error, true);
  assert.match(bad.content, /does not exist/);

  await h.run("mkdir gone && cd gone");
  await Deno.remove(join(h.ws, "gone"));
  const reset = await h.run("pwd");
  assert.equal(reset.is_error, true);
  assert.match(reset.content, /no longer exists/);
  assert.equal(h.ctx.state.shell.cwd, h.ws);
  assert.equal((await h.run("pwd")).content, h.ws);
});

Deno.test("arguments are validated with messages the model can act on", async () => {
  await using h = await harness();
  assert.throws(() => h.tool.parse({}), ToolInputError);
  assert.throws(() => h.tool.parse({ command: "" }), /command/);
  assert.throws(() => h.tool.parse({ command: "ls", timeout: "soon" }), /timeout/);
  const params = h.tool.parameters as { type: string; required: string[]; properties: object };
  assert.equal(params.type, "object");
  assert.deepEqual(params.required, ["command"]);
  assert.deepEqual(Object.keys(params.properties).sort(), [
    "auto_background_after",
    "command",
    "description",
    "run_in_background",
    "timeout",
    "working_dir",
  ]);
});

Deno.test("access() hands the parsed script to the gate", async () => {
  await using h = await harness();
  const input = h.tool.parse({ command: "npm test && c\\url x" });
  const access = await h.tool.access!(input, h.ctx);
  assert.deepEqual(access.shell?.commands.map((c) => c.argv), [["npm", "test"], ["curl", "x"]]);
});

Deno.test("a call whose state cannot be read leaves the session's directory and exports as they were", async () => {
  await using h = await harness();
  await h.run("mkdir -p sub && cd sub && export KEEP=1");
  const before = { cwd: h.ctx.state.shell.cwd, env: { ...h.ctx.state.shell.env } };
  assert.deepEqual(before.env, { KEEP: "1" });
  await h.run("cd / && export OTHER=2 && enable -n export");
  assert.deepEqual({ cwd: h.ctx.state.shell.cwd, env: h.ctx.state.shell.env }, before);
});
