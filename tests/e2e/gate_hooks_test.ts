/**
 * crush's hooks and `options.disabled_tools` end to end under the printed flags: the
 * "block rm -rf" hook from crush's documentation denies through CRUSH_TOOL_INPUT_COMMAND,
 * a halting hook ends the run with exit 3 whatever --on-deny says, and a disabled tool
 * is neither offered nor granted.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events, runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { parentAndChild } from "./_live.ts";

const NO_RM_RF = `#!/usr/bin/env bash
if echo "$CRUSH_TOOL_INPUT_COMMAND" | grep -qE 'rm\\s+-(rf|fr)\\s+/'; then
  echo "Refusing to run rm -rf against root" >&2
  exit 2
fi
exit 0
`;

async function printed(ws: Workspace): Promise<string[]> {
  const r = await runMopac(["sandbox"], { cwd: ws.dir, perms: ws.perms, env: FAKE_ENV });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split(/\s+/);
}

Deno.test("e2e hooks: crush's documented hook denies; a halt ends the run with exit 3", async () => {
  const turns = [
    scriptToolCall("bash", { command: "rm -rf /nonexistent-mopac-dir/x" }),
    scriptToolCall("bash", { command: "echo still-running" }),
    scriptToolCall("view", { file_path: "README.md" }),
    scriptText("never reached"),
  ];
  const ws = await workspace({ turns }, {
    // crush's snake_case spelling of the event.
    hooks: {
      pre_tool_use: [
        { matcher: "^bash$", command: "./no-rm-rf.sh" },
        { matcher: "^view$", command: "echo 'frozen for audit' >&2; exit 49" },
      ],
    },
  });
  try {
    await Deno.writeTextFile(`${ws.dir}/no-rm-rf.sh`, NO_RM_RF, { mode: 0o755 });
    await Deno.writeTextFile(`${ws.dir}/README.md`, "hi\n");
    const r = await runMopac(["run", "--on-deny", "continue", "-o", "stream-json", "go"], {
      cwd: ws.dir,
      perms: {},
      flags: await printed(ws),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 3, r.stderr);
    const ev = events(r.stdout);
    const result = ev.at(-1)!;
    assert.equal(result.subtype, "error_gate");
    const denials = result.denials as Array<{ rule: string; reason: string }>;
    assert.deepEqual(denials.map((d) => d.rule), ["hooks.PreToolUse", "hooks.PreToolUse"]);
    assert.equal(denials[0].reason, "Refusing to run rm -rf against root");
    assert.equal(denials[1].reason, "frozen for audit");
    const outputs = ev.filter((e) => e.type === "tool_result").map((e) => String(e.output));
    assert.match(outputs[1], /still-running/);
    // The halt ended the run: the model was not asked again.
    assert.equal(ws.fake.turnRequests().length, 3);
  } finally {
    await ws.close();
  }
});

Deno.test("e2e: options.disabled_tools takes bash away: not offered, not granted, refused", async () => {
  const turns = [scriptToolCall("bash", { command: "echo hi" }), scriptText("done")];
  const ws = await workspace({ turns }, { options: { disabled_tools: ["bash"] } });
  try {
    const flags = await printed(ws);
    assert.ok(!flags.some((f) => f.startsWith("--allow-run")), flags.join(" "));
    const r = await runMopac(["run", "-o", "stream-json", "go"], {
      cwd: ws.dir,
      perms: {},
      flags,
      env: FAKE_ENV,
    });
    assert.equal(r.code, 0, r.stderr);
    const ev = events(r.stdout);
    assert.ok(!(ev[0].tools as string[]).includes("bash"));
    const denials = ev.at(-1)!.denials as Array<{ rule: string }>;
    assert.deepEqual(denials.map((d) => d.rule), ["not_allowed"]);
    const usage = await runMopac(["run", "--tools", "bash", "go"], {
      cwd: ws.dir,
      perms: {},
      flags,
      env: FAKE_ENV,
    });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /options\.disabled_tools/);
  } finally {
    await ws.close();
  }
});

Deno.test("e2e hooks: a hook halting a sub-agent's call ends the parent run with exit 3", async () => {
  const child = [scriptToolCall("view", { file_path: "README.md" }, "c_view"), scriptText("CHILD")];
  const parent = [
    scriptToolCall("agent", { prompt: "CHILD: read the readme" }, "p_agent"),
    scriptToolCall("bash", { command: "echo parent-went-on" }, "p_bash"),
    scriptText("never reached"),
  ];
  const ws = await workspace({
    turns: parentAndChild(parent, child),
  }, {
    hooks: { PreToolUse: [{ matcher: "^view$", command: "echo 'frozen in child' >&2; exit 49" }] },
  });
  try {
    await Deno.writeTextFile(`${ws.dir}/README.md`, "hi\n");
    const r = await runMopac(["run", "-o", "stream-json", "delegate"], {
      cwd: ws.dir,
      perms: {},
      flags: await printed(ws),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 3, r.stderr);
    const result = events(r.stdout).at(-1)!;
    assert.equal(result.subtype, "error_gate");
    const denials = result.denials as Array<{ tool: string; rule: string; reason: string }>;
    assert.deepEqual(denials.map((d) => `${d.tool} ${d.rule} ${d.reason}`), [
      "view hooks.PreToolUse frozen in child",
    ]);
    // One request of the parent, one of the child; neither was asked again.
    assert.equal(ws.fake.turnRequests().length, 2);
    assert.ok(!r.stdout.includes("parent-went-on"));
  } finally {
    await ws.close();
  }
});
