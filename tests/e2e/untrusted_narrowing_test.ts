/**
 * What an untrusted project may do, end to end: lower the operator's limits (even one
 * given as a flag), offer fewer tools, add deny rules. What would widen (an allow rule,
 * a write scope, a tool the operator's profile lacks, a limit above the operator's) is
 * ignored and reported: once on stderr and in the `init` event.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { world } from "./_untrusted.ts";

const OPERATOR = {
  models: { large: { model: "openai/gpt-4.1" } },
  agents: {
    fixer: {
      allowed_tools: ["bash", "view", "edit", "grep", "todos"],
      bash: { deny: ["git push*"] },
    },
  },
  limits: { max_cost: 1 },
};

const PROJECT = {
  options: { disabled_tools: ["todos"] },
  limits: { max_turns: 3, max_cost: 1000 },
  agents: {
    fixer: {
      allowed_tools: ["bash", "view", "grep", "write"],
      bash: { allow: ["*"], deny: ["echo nope*"] },
      paths: { write: ["/**"], deny: ["private/**"] },
    },
  },
};

Deno.test("an untrusted project narrows: fewer tools, extra deny rules, a lower turn limit", async () => {
  const w = await world({
    turns: [
      scriptToolCall("bash", { command: "echo nope, not this" }),
      scriptToolCall("view", { file_path: "private/key.txt" }),
      scriptToolCall("bash", { command: "echo fine" }),
      scriptText("never reached: the project allows 3 turns"),
    ],
  }, OPERATOR);
  try {
    await w.write("mopac.json", PROJECT);
    await w.write("private/key.txt", "k");
    const r = await w.mopac([
      "run",
      "-a",
      "fixer",
      "--max-turns",
      "10",
      "-o",
      "stream-json",
      "work",
    ]);
    assert.equal(r.code, 4, r.stderr);
    const ev = events(r.stdout);
    const init = ev[0];
    assert.deepEqual(init.tools, ["bash", "grep", "view"]);
    const result = ev.at(-1)!;
    assert.equal(result.subtype, "error_max_turns");
    assert.equal(result.num_turns, 3);
    assert.deepEqual(
      (result.denials as Array<{ rule: string }>).map((d) => d.rule),
      ["bash.deny:echo nope*", "paths.deny"],
    );
    const ran = ev.filter((e) => e.type === "tool_result" && !e.is_error);
    assert.equal(ran.length, 1);
    assert.match(String(ran[0].output), /fine/);

    // What would widen is ignored, and said.
    const ignored = (init.ignored_project_keys as Array<{ key: string; reason: string }>)
      .map((i) => `${i.key}: ${i.reason}`);
    assert.deepEqual(ignored, [
      "agents.fixer.bash.allow: an untrusted project may not set this",
      "agents.fixer.paths.write: an untrusted project may not set this",
      'agents.fixer.allowed_tools: profile "fixer" of the operator does not offer write',
      "limits.max_cost: above the operator's limit (1)",
    ]);
    const notice = r.stderr.split("\n").filter((l) => l.includes("not trusted"));
    assert.equal(notice.length, 1);
    assert.match(
      notice[0],
      /ignored agents\.fixer\.bash\.allow, agents\.fixer\.paths\.write, agents\.fixer\.allowed_tools, limits\.max_cost \(mopac\.json\)/,
    );
    assert.deepEqual(w.attacker.received, []);
  } finally {
    await w.close();
  }
});

Deno.test("--dry-run shows the narrowed run: tools, limits, the project's narrowing", async () => {
  const w = await world({ turns: [] }, OPERATOR);
  try {
    await w.write("mopac.json", PROJECT);
    const r = await w.mopac(["run", "--dry-run", "-a", "fixer", "--max-cost", "5", "x"]);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.deepEqual(plan.tools, ["bash", "grep", "view"]);
    // The flag's $5 stays (the project's $1000 is above it); the project's 3 turns apply.
    assert.deepEqual(plan.limits, { max_turns: 3, max_cost: 5 });
    assert.deepEqual(plan.project_narrowing.agents.fixer.bash_deny, ["echo nope*"]);
    assert.equal(plan.project_trusted, false);
    assert.equal(plan.ignored_project_keys.length, 4);
  } finally {
    await w.close();
  }
});

Deno.test("resuming in an untrusted checkout restores only a listed model (an unlisted one has no price)", async () => {
  const w = await world({ models: ["gpt-4.1", "unlisted-x"], turns: () => scriptText("ok") }, {
    models: { large: { model: "openai/gpt-4.1" } },
  });
  try {
    // Whoever wrote the session (here a run with -m): its last model is unlisted.
    const first = await w.mopac(["run", "-m", "openai/unlisted-x", "-o", "stream-json", "one"]);
    assert.equal(first.code, 0, first.stderr);
    const resumed = await w.mopac(["run", "-C", "-o", "stream-json", "two"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(events(resumed.stdout)[0].model, "openai/gpt-4.1");
    assert.match(resumed.stderr, /not restoring openai\/unlisted-x: not a listed model/);
    // Trusted, the same kind of session comes back on its own model.
    await w.mopac(["run", "-m", "openai/unlisted-x", "three"]);
    const trusted = await w.mopac(["run", "--trust-project", "-C", "-o", "stream-json", "four"]);
    assert.equal(events(trusted.stdout)[0].model, "openai/unlisted-x");
  } finally {
    await w.close();
  }
});
