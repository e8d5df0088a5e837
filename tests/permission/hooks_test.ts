/** PreToolUse hooks run by real bash: outcomes, time-outs, process groups, environment. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PreToolUseHooks, runHookCommand } from "../../src/permission/hooks.ts";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import type { Decision } from "../../src/permission/types.ts";

/**
 * Running and not a zombie (a container's PID 1 may never reap orphans). Read through
 * bash: Deno itself wants --allow-all for anything under /proc.
 */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("bash", { args: ["-c", `cat /proc/${pid}/stat`] }).output();
  const stat = new TextDecoder().decode(out.stdout);
  if (!out.success || stat === "") return false;
  return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_hooks_" }));
}

Deno.test("exit codes and stdout decisions", async () => {
  const dir = await tempDir();
  try {
    const warnings: string[] = [];
    const check = (command: string) =>
      new PreToolUseHooks([{ command }], { cwd: dir, log: (s) => warnings.push(s) })
        .check({ tool: "bash", input: { command: "ls" } });
    assert.deepEqual(await check("exit 0"), { allow: true });
    assert.deepEqual(await check("exit 2"), {
      allow: false,
      rule: "hooks.PreToolUse",
      reason: "blocked by hook",
    });
    assert.deepEqual(await check("echo '  halted  ' >&2; exit 49"), {
      allow: false,
      rule: "hooks.PreToolUse",
      reason: "halted",
      halt: true,
    });
    assert.deepEqual(await check(`echo '{"decision":"deny","reason":"crush says no"}'`), {
      allow: false,
      rule: "hooks.PreToolUse",
      reason: "crush says no",
    });
    assert.deepEqual(await check(`echo '{"decision":"allow"}'`), { allow: true });
    assert.deepEqual(await check("exit 1"), { allow: true });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /exited with 1/);
    // The payload reaches stdin and the hook runs in the workspace.
    assert.deepEqual(
      await check(`grep -q '"tool_name":"bash"' && [ "$PWD" = '${dir}' ] || exit 2`),
      { allow: true },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a matcher is an unanchored regex; no matcher matches every tool", async () => {
  const hooks = new PreToolUseHooks([
    { matcher: "^mcp_", command: "echo mcp >&2; exit 2" },
    { matcher: "edit", command: "echo edit >&2; exit 2" },
  ], { cwd: "/" });
  assert.equal((await hooks.check({ tool: "view", input: {} })).allow, true);
  assert.deepEqual(await hooks.check({ tool: "multiedit", input: {} }), {
    allow: false,
    rule: "hooks.PreToolUse",
    reason: "edit",
  });
  assert.deepEqual(await hooks.check({ tool: "mcp_gh_x", input: {} }), {
    allow: false,
    rule: "hooks.PreToolUse",
    reason: "mcp",
  });
});

Deno.test({
  name: "time-out under --allow-run=bash kills the hook's whole process group",
  ignore: Deno.build.os !== "linux", // reads /proc
  permissions: { run: ["bash"], read: true, write: true, env: false },
  async fn() {
    const dir = await tempDir();
    try {
      const pidFile = join(dir, "pid");
      // The hook must have started its child and written the pid before the time-out
      // fires: 5 s leaves bash that time on a loaded machine (the hook never ends).
      const outcome = await runHookCommand(
        { command: `sleep 30 & echo $! > '${pidFile}'; wait` },
        "{}",
        { cwd: dir, timeoutMs: 5_000, env: {}, clearEnv: false },
      );
      assert.deepEqual(outcome, { kind: "timeout" });
      const pid = Number((await Deno.readTextFile(pidFile)).trim());
      assert.ok(pid > 0);
      // SIGKILL is sent to the group at the time-out; dying takes the kernel a moment.
      const deadline = Date.now() + 5_000;
      while (await alive(pid) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(await alive(pid), false, "the background sleep was left running");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a background child holding the pipes does not keep the call waiting", async () => {
  const started = Date.now();
  const outcome = await runHookCommand(
    { command: "sleep 3 & echo $!; exit 0" },
    "{}",
    { cwd: "/", timeoutMs: 10_000, env: {}, clearEnv: false },
  );
  const elapsed = Date.now() - started;
  assert.equal(outcome.kind, "exit");
  const pid = outcome.kind === "exit" ? Number(outcome.stdout.trim()) : 0;
  assert.ok(pid > 0);
  await new Deno.Command("bash", { args: ["-c", `kill ${pid}`] }).output();
  // Printed, not asserted as a timing: the call returns after a short grace, not after 3 s.
  console.log(`hook with background child returned in ${elapsed} ms`);
});

Deno.test("with a hook environment, the parent's environment is not passed on", async () => {
  Deno.env.set("MOPAC_TEST_PARENT_SECRET", "parent-secret-value");
  try {
    const hooks = new PreToolUseHooks([{
      command: `[ -z "$MOPAC_TEST_PARENT_SECRET" ] && [ "$MOPAC_TOOL_NAME" = view ] && ` +
        `[ "$KEEP" = yes ] || exit 2`,
    }], { cwd: "/", env: { KEEP: "yes", PATH: "/usr/bin:/bin" } });
    assert.deepEqual(await hooks.check({ tool: "view", input: {} }), { allow: true });
    // Without one, the hook inherits mopac's environment (crush's behaviour), plus MOPAC_*.
    const inherit = new PreToolUseHooks([{
      command: `[ "$MOPAC_TEST_PARENT_SECRET" = parent-secret-value ] && ` +
        `[ "$MOPAC_EVENT" = PreToolUse ] || exit 2`,
    }], { cwd: "/" });
    assert.deepEqual(await inherit.check({ tool: "view", input: {} }), { allow: true });
  } finally {
    Deno.env.delete("MOPAC_TEST_PARENT_SECRET");
  }
});

function denied(d: Decision, rule: string, reason: RegExp): void {
  assert.equal(d.allow, false);
  if (d.allow) return;
  assert.equal(d.rule, rule);
  assert.match(d.reason, reason);
}

Deno.test("hooks: stdout JSON can deny; an injected runner sees the payload", async () => {
  const payloads: string[] = [];
  const gate = createGate({
    profile: resolveProfile("coder", {}),
    workspace: "/w",
    hooks: [{ command: "policy" }],
    runHook: (_hook, payload) => {
      payloads.push(payload);
      const deny = JSON.parse(payload).tool_name === "bash";
      return Promise.resolve({
        kind: "exit",
        code: 0,
        stderr: "",
        stdout: deny
          ? JSON.stringify({
            hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "no" },
          })
          : "not json",
      });
    },
  });
  denied(
    await gate.check({ tool: "bash", input: { command: "ls" }, access: {}, session_id: "s9" }),
    "hooks.PreToolUse",
    /^no$/,
  );
  assert.deepEqual(await gate.check({ tool: "view", input: {}, access: {} }), { allow: true });
  assert.equal(JSON.parse(payloads[0]).session_id, "s9");
  assert.deepEqual(JSON.parse(payloads[0]).tool_input, { command: "ls" });
});

Deno.test("hooks: a command that cannot start denies; bad matcher is a config error", async () => {
  const gate = createGate({
    profile: resolveProfile("coder", {}),
    workspace: "/w",
    hooks: [{ command: "x" }],
    runHook: () => Promise.reject(new Error("spawn failed")),
  });
  denied(
    await gate.check({ tool: "view", input: {}, access: {} }),
    "hooks.PreToolUse",
    /spawn failed/,
  );
  assert.throws(
    () =>
      createGate({
        profile: resolveProfile("coder", {}),
        workspace: "/w",
        hooks: [{ matcher: "(", command: "x" }],
      }),
    /hooks\.PreToolUse\[0\]\.matcher/,
  );
});

/** crush's own "block rm -rf" hook from its hooks documentation, as a script file. */
const CRUSH_NO_RM_RF = `#!/usr/bin/env bash
if echo "$CRUSH_TOOL_INPUT_COMMAND" | grep -qE 'rm\\s+-(rf|fr)\\s+/'; then
  echo "Refusing to run rm -rf against root" >&2
  exit 2
fi
exit 0
`;

Deno.test("crush's documented hooks work unchanged: CRUSH_* variables are set", async () => {
  const dir = await tempDir();
  try {
    await Deno.writeTextFile(join(dir, "no-rm-rf.sh"), CRUSH_NO_RM_RF, { mode: 0o755 });
    const hooks = new PreToolUseHooks([{ matcher: "^bash$", command: "./no-rm-rf.sh" }], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    denied(
      await hooks.check({ tool: "bash", input: { command: "rm -rf /" } }),
      "hooks.PreToolUse",
      /^Refusing to run rm -rf against root$/,
    );
    assert.deepEqual(await hooks.check({ tool: "bash", input: { command: "ls" } }), {
      allow: true,
    });
    // Every variable crush's documentation lists, and the same as MOPAC_*.
    const vars = new PreToolUseHooks([{
      command: `[ "$CRUSH" = 1 ] && [ -n "$AGENT" ] && [ -n "$AI_AGENT" ] && ` +
        `[ "$CRUSH_EVENT" = PreToolUse ] && [ "$CRUSH_TOOL_NAME" = edit ] && ` +
        `[ "$CRUSH_SESSION_ID" = s1 ] && [ "$CRUSH_CWD" = '${dir}' ] && ` +
        `[ "$CRUSH_PROJECT_DIR" = '${dir}' ] && [ "$CRUSH_TOOL_INPUT_FILE_PATH" = a.go ] && ` +
        `[ "$MOPAC_TOOL_INPUT_FILE_PATH" = a.go ] && [ -z "$CRUSH_TOOL_INPUT_COMMAND" ] || exit 2`,
    }], { cwd: dir, env: { PATH: "/usr/bin:/bin" } });
    assert.deepEqual(
      await vars.check({ tool: "edit", input: { file_path: "a.go" }, session_id: "s1" }),
      { allow: true },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("halt (exit 49 or JSON), deny, rewrite and context compose in config order", async () => {
  const run = (...commands: string[]) =>
    new PreToolUseHooks(commands.map((command) => ({ command })), { cwd: "/" })
      .check({ tool: "bash", input: { command: "npm test", timeout: 60000 } });
  assert.deepEqual(await run(`echo '{"halt": true, "reason": "stop now"}'`), {
    allow: false,
    rule: "hooks.PreToolUse",
    reason: "stop now",
    halt: true,
  });
  assert.deepEqual(await run(`echo '{"continue": false, "stopReason": "claude stop"}'`), {
    allow: false,
    rule: "hooks.PreToolUse",
    reason: "claude stop",
    halt: true,
  });
  // A halt wins over a denial; a denial drops every rewrite.
  const both = await run("echo no >&2; exit 2", "echo stop >&2; exit 49");
  assert.equal(both.allow, false);
  if (!both.allow) assert.equal(both.halt, true);
  assert.deepEqual(
    await run(`echo '{"updated_input": {"command": "bun test"}}'`, "echo no >&2; exit 2"),
    { allow: false, rule: "hooks.PreToolUse", reason: "no" },
  );
  // Patches merge in config order (later keys win); notes are joined.
  assert.deepEqual(
    await run(
      `echo '{"updated_input": {"command": "bun test"}, "context": "first"}'`,
      `echo '{"updated_input": {"command": "deno test"}, "context": ["second", ""]}'`,
      `echo '{"hookSpecificOutput": {"updatedInput": {"timeout": 5}}}'`,
    ),
    {
      allow: true,
      updated_input: { command: "deno test", timeout: 5 },
      context: "first\nsecond",
    },
  );
});

Deno.test("updated_input as crush also writes it (a string holding an object); anything else denies", async () => {
  const run = (stdout: unknown) =>
    new PreToolUseHooks([{ command: `echo '${JSON.stringify(stdout)}'` }], { cwd: "/" })
      .check({ tool: "bash", input: { command: "npm test" } });
  assert.deepEqual(await run({ updated_input: '{"command": "bun test"}' }), {
    allow: true,
    updated_input: { command: "bun test" },
  });
  // A rewrite the hook meant but that cannot be applied: never the original instead.
  for (const bad of ["bun test", "[1]", 5, true, ["command"], '"x"']) {
    const d = await run({ updated_input: bad });
    assert.equal(d.allow, false, JSON.stringify(bad));
    if (!d.allow) {
      assert.equal(d.rule, "hooks.PreToolUse");
      assert.match(d.reason, /updated_input is not a JSON object; the call was not run/);
    }
  }
  const claude = await run({ hookSpecificOutput: { updatedInput: "rm -rf /" } });
  assert.equal(claude.allow, false);
  // null and absent mean no rewrite.
  assert.deepEqual(await run({ updated_input: null, decision: "allow" }), { allow: true });
  // crush's other spellings of context.
  assert.deepEqual(await run({ additionalContext: "a", additional_context: ["b"] }), {
    allow: true,
    context: "a\nb",
  });
});
