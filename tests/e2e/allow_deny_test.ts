/**
 * `--allow RULE` / `--deny RULE` end to end: what the model is offered, which of its
 * calls pass, and the profile's `flag_allow` as the limit of what an allow may add.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";
import { toolResults } from "./_tool_results.ts";

const offered = (req: { tools?: unknown }) =>
  ((req.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

Deno.test("e2e --deny: a tool is not offered, a bash pattern is refused, the rest runs", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("bash", { command: "git push origin main" }),
      scriptToolCall("bash", { command: "echo fine" }),
      scriptText("done"),
    ],
  });
  const r = await ws.run(["run", "--deny", "fetch", "--deny", "bash:git push*", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const reqs = ws.fake.turnRequests();
  assert.equal(offered(reqs[0]).includes("fetch"), false);
  assert.equal(offered(reqs[0]).includes("bash"), true);
  assert.match(toolResults(reqs[1])[0], /matches the deny pattern "git push\*"/);
  assert.match(toolResults(reqs[2])[1], /fine/);
});

const FIXER = {
  agents: {
    fixer: {
      allowed_tools: ["view", "bash"],
      bash: { allow: ["echo *"] },
      flag_allow: ["bash:ls *", "grep"],
    },
  },
};

Deno.test("e2e --allow: extends the profile within its flag_allow", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("bash", { command: "ls -a" }),
      scriptToolCall("bash", { command: "cat mopac.json" }),
      scriptText("done"),
    ],
  }, FIXER);
  const r = await ws.run(["run", "-a", "fixer", "--allow", "bash:ls -a*", "--allow", "grep", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const reqs = ws.fake.turnRequests();
  assert.deepEqual(offered(reqs[0]).sort(), ["bash", "grep", "view"]);
  assert.match(toolResults(reqs[1])[0], /mopac\.json/, "ls -a ran");
  assert.match(toolResults(reqs[2])[1], /matches no allowed command pattern/, "cat is still out");
});

Deno.test("e2e --allow: without the flag the same call is refused", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("bash", { command: "ls -a" }), scriptText("done")],
  }, FIXER);
  const r = await ws.run(["run", "-a", "fixer", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(toolResults(ws.fake.turnRequests()[1])[0], /matches no allowed command pattern/);
});

Deno.test("e2e --allow/--deny: bad rules are exit 2 naming the flag, before any request", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] }, FIXER);
  const cases: Array<[string[], RegExp]> = [
    [
      ["-a", "fixer", "--allow", "bash:rm -rf*"],
      /--allow bash:rm -rf\*: profile "fixer" does not let flags allow this/,
    ],
    [["--allow", "nosuch"], /--allow nosuch: unknown tool "nosuch"/],
    [["--deny", "fetch:evil.example"], /--deny fetch:evil\.example: fetch has no deny list/],
    [["--deny", "frob:x"], /--deny frob:x: unknown rule kind "frob"/],
    [["--deny", ""], /--deny needs a value/],
  ];
  for (const [flags, message] of cases) {
    const r = await ws.run(["run", ...flags, "hi"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(ws.fake.requests.length, 0);
});

Deno.test("e2e --allow: an allow the profile needs not is said on stderr and changes nothing", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("bash", { command: "echo free" }), scriptText("done")],
  });
  const r = await ws.run(["run", "--allow", "bash:npm test*", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--allow bash:npm test\*: profile "coder" has no bash\.allow list/);
  assert.match(toolResults(ws.fake.turnRequests()[1])[0], /free/);
});
