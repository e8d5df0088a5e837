/**
 * Sub-agents end to end: the model calls `agent` twice in one response; both children
 * run at once (the proxy holds the first child's request until the second child's
 * arrives), are stored as child sessions, never picked by -C, add their usage and cost
 * to the parent's, and cannot write (the task profile does not offer `write`).
 */
import assert from "node:assert/strict";
import {
  type ParsedRequest,
  type ScriptedTurn,
  scriptText,
  scriptToolCall,
  scriptToolCalls,
} from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";
import { contentText, Latch, patchConfig, startHoldProxy } from "./_hold_proxy.ts";

const SMALL = "fake-small";
const use = (prompt_tokens: number, completion_tokens: number) => ({
  usage: { prompt_tokens, completion_tokens },
});

function firstUser(req: ParsedRequest): string {
  return contentText(req.messages.find((m) => m.role === "user")?.content);
}
function lastUser(req: ParsedRequest): string {
  return contentText(req.messages.filter((m) => m.role === "user").at(-1)?.content);
}
function isTitle(req: ParsedRequest): boolean {
  return req.model === SMALL && contentText(req.messages[0].content).startsWith("Write a title");
}
/** "A" / "B" for a child's request, by the task in its first user message. */
function childOf(req: ParsedRequest): "A" | "B" | undefined {
  if (req.model !== SMALL || isTitle(req)) return undefined;
  return firstUser(req).includes("CHILD-A")
    ? "A"
    : firstUser(req).includes("CHILD-B")
    ? "B"
    : undefined;
}
function step(req: ParsedRequest): number {
  return req.messages.filter((m) => m.role === "assistant").length;
}

const CHILD_TURNS: Record<"A" | "B", ScriptedTurn[]> = {
  // Child A tries to write, which its profile does not offer, then answers.
  A: [
    scriptToolCall("write", { file_path: "pwned.txt", content: "x" }, "call_a_write", use(200, 10)),
    scriptText("A-RESULT: the loader is src/config/load.ts", use(300, 15)),
  ],
  B: [
    scriptToolCall("view", { file_path: "README.md" }, "call_b_view", use(250, 12)),
    scriptText("B-RESULT: the readme says hello", use(350, 14)),
  ],
};

const PARENT_TURNS: ScriptedTurn[] = [
  scriptToolCalls([
    { id: "call_agent_a", name: "agent", arguments: { prompt: "CHILD-A: find the config loader" } },
    { id: "call_agent_b", name: "agent", arguments: { prompt: "CHILD-B: read the readme" } },
  ], use(1_000, 30)),
  scriptText("PARENT-DONE", use(1_500, 40)),
];

Deno.test("e2e: two parallel sub-agents: child sessions, totals rolled up, a child's write denied, -C skips them", async () => {
  let parentTurn = 0;
  const ws = await workspace({
    turns: (req) => {
      if (isTitle(req)) return scriptText("Two Sub Agents", use(50, 5));
      const child = childOf(req);
      if (child) return CHILD_TURNS[child][step(req)];
      if (lastUser(req) === "poke") return scriptText("POKED");
      if (lastUser(req) === "what next?") return scriptText("NEXT-ANSWER");
      return PARENT_TURNS[parentTurn++];
    },
  });
  const bArrived = new Latch();
  let aHeldUntilB: boolean | undefined;
  const proxy = startHoldProxy(ws.fake.url, {
    before: async (req) => {
      const child = childOf(req);
      if (child === "B" && step(req) === 0) bArrived.fire();
      // Child A's first request waits until child B's first request is here: only
      // children that run at the same time get past this.
      if (child === "A" && step(req) === 0) aHeldUntilB = await bArrived.wait(8_000);
    },
  });
  try {
    await Deno.writeTextFile(`${ws.dir}/README.md`, "hello from the readme\n");
    await patchConfig(ws.dir, (c) => {
      c.providers.fake.base_url = proxy.url;
      c.providers.fake.models.push({
        id: SMALL,
        name: "Fake small",
        context_window: 64_000,
        default_max_tokens: 1024,
        cost_per_1m_in: 0.5,
        cost_per_1m_out: 1,
      });
      c.models.small = { provider: "fake", model: SMALL };
    });
    const perms = { ...ws.perms, net: [...ws.perms.net!, `127.0.0.1:${proxy.port}`] };
    const run = (args: string[]) => ws.run(args, { perms });

    const r = await run(["run", "-o", "stream-json", "survey the repo with two helpers"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ws.fake.rejected, []);
    assert.equal(aHeldUntilB, true, "child B started while child A's request was held");

    const ev = events(r.stdout);
    const parentId = String(ev[0].session_id);
    const result = ev.at(-1)!;
    assert.equal(result.subtype, "success");
    assert.equal(result.result, "PARENT-DONE");

    // The children's final texts are the agent tools' results, in call order.
    const results = ev.filter((e) => e.type === "tool_result");
    assert.deepEqual(results.map((e) => [e.id, e.is_error]), [
      ["call_agent_a", false],
      ["call_agent_b", false],
    ]);
    assert.match(String(results[0].output), /A-RESULT/);
    assert.match(String(results[1].output), /B-RESULT/);

    // Children run with the small model and the task profile: no write, bash, edit or agent,
    // and no fetch (task lists no fetch.hosts).
    const childReqs = ws.fake.turnRequests().filter((q) => childOf(q));
    assert.equal(childReqs.length, 4);
    for (const q of childReqs) {
      assert.match(contentText(q.messages[0].content), /^You are a mopac sub-agent/);
      assert.deepEqual(q.tools?.map((t) => t.function.name), [
        "glob",
        "grep",
        "ls",
        "todos",
        "view",
      ]);
    }
    // Child A's write was refused by the gate, and nothing was written.
    const a2 = childReqs.find((q) => childOf(q) === "A" && step(q) === 1)!;
    const refusal = a2.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_a_write");
    assert.match(contentText(refusal?.content), /Permission denied/);
    await assert.rejects(Deno.stat(`${ws.dir}/pwned.txt`), Deno.errors.NotFound);
    const b2 = childReqs.find((q) => childOf(q) === "B" && step(q) === 1)!;
    assert.match(JSON.stringify(b2.messages), /hello from the readme/);

    // Usage and cost: the parent's two turns plus the children's four (the title is apart).
    const usage = result.usage as Record<string, number>;
    assert.equal(usage.input_tokens, 1_000 + 1_500 + 200 + 300 + 250 + 350);
    assert.equal(usage.output_tokens, 30 + 40 + 10 + 15 + 12 + 14);
    const cost = (2_500 * 1 + 70 * 2 + 1_100 * 0.5 + 51 * 1) / 1e6;
    assert.ok(Math.abs(Number(result.cost_usd) - cost) < 1e-9, `${result.cost_usd} vs ${cost}`);

    // Both children are stored with the parent's id; the plain list shows only the parent.
    const list = async (all: boolean) => {
      const l = await run(["sessions", "list", "--json", ...(all ? ["--all"] : [])]);
      assert.equal(l.code, 0, l.stderr);
      return JSON.parse(l.stdout) as Array<Record<string, unknown>>;
    };
    const everything = await list(true);
    assert.equal(everything.length, 3);
    const children = everything.filter((s) => s.parent_id === parentId);
    assert.equal(children.length, 2);
    assert.deepEqual(children.map((s) => s.title).sort(), [
      "CHILD-A: find the config loader",
      "CHILD-B: read the readme",
    ]);
    assert.deepEqual((await list(false)).map((s) => s.id), [parentId]);
    const childA = children.find((s) => String(s.title).startsWith("CHILD-A"))!;
    const jsonlA = await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${childA.id}.jsonl`);
    assert.match(jsonlA, /"denial":\{"tool":"write"/);

    // Make a child the most recently updated session; -C still continues the parent.
    const poke = await run(["run", "-s", String(childA.id), "-m", "fake/fake-model", "poke"]);
    assert.equal(poke.code, 0, poke.stderr);
    assert.equal((await list(true))[0].id, childA.id);
    const c = await run(["run", "-C", "-o", "json", "what next?"]);
    assert.equal(c.code, 0, c.stderr);
    const cont = JSON.parse(c.stdout);
    assert.equal(cont.session_id, parentId);
    assert.equal(cont.result, "NEXT-ANSWER");
    const last = ws.fake.turnRequests().at(-1)!;
    assert.match(firstUser(last), /survey the repo with two helpers/);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await proxy.close();
    await ws.close();
  }
});
