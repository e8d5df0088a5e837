/**
 * A misbehaving model, scripted through the strict fake server: whatever it sends,
 * a call the tools cannot use goes back to it as a tool error, the conversation
 * mopac sends next is one the API accepts, and an answer that is not finished is
 * not reported as success.
 */
import assert from "node:assert/strict";
import {
  type ScriptedTurn,
  scriptText,
  scriptToolCall,
  scriptToolCalls,
} from "../_support/fake_openai.ts";
import { events, type MopacRun } from "../_support/run_mopac.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

// Reported usage keeps the context estimate small, so no summary request interferes.
const SMALL = { usage: { prompt_tokens: 300, completion_tokens: 20 } };

async function scripted(
  turns: ScriptedTurn[],
  args: string[],
  fn: (r: MopacRun, ws: Workspace) => Promise<void> | void,
) {
  await using ws = await workspace({ turns });
  const r = await ws.run(["run", ...args]);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at .*\.ts:\d+/);
  await fn(r, ws);
  assert.deepEqual(ws.fake.rejected, [], "every request mopac sent was valid");
}

function results(stdout: string) {
  return events(stdout).filter((e) => e.type === "tool_result") as Array<{
    id: string;
    is_error: boolean;
    output: string;
  }>;
}

Deno.test("adversarial: unusable tool calls go back to the model as tool errors and the run goes on", async () => {
  const calls = [
    { name: "nosuchtool", arguments: {} },
    { name: "view", arguments: "{not json" },
    { name: "view", arguments: "[1,2]" },
    { name: "view", arguments: '"a string"' },
    { name: "view", arguments: "null" },
    // Nested so deep that walking it (redaction, events) used to overflow the stack: exit 5.
    { name: "view", arguments: '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000) },
  ];
  await scripted(
    [scriptToolCalls(calls, SMALL), scriptText("done", SMALL)],
    ["-o", "stream-json", "go"],
    (r) => {
      assert.equal(r.code, 0, r.stderr);
      const res = results(r.stdout);
      assert.equal(res.length, calls.length);
      assert.ok(res.every((x) => x.is_error), JSON.stringify(res));
      assert.match(res[0].output, /nosuchtool/);
      assert.match(res[1].output, /Invalid JSON in tool arguments/);
      assert.match(res[2].output, /must be a JSON object, got an array/);
      assert.match(res[4].output, /file_path is required/);
      assert.match(res[5].output, /nested over 100 levels deep/);
      assert.equal(events(r.stdout).at(-1)?.result, "done");
    },
  );
});

Deno.test("adversarial: 50 calls in one response, duplicate call ids and a 1 MB argument all run", async () => {
  const fifty = Array.from({ length: 50 }, (_, i) => ({
    name: "bash",
    arguments: { command: `echo ${i} >> n.txt` },
  }));
  const dup = [
    { id: "dup", name: "ls", arguments: {} },
    { id: "dup", name: "ls", arguments: { path: "." } },
  ];
  const mega = "z".repeat(1024 * 1024);
  await scripted(
    [
      scriptToolCalls(fifty, SMALL),
      scriptToolCalls(dup, SMALL),
      scriptToolCall("write", { file_path: "big.txt", content: mega }, undefined, {
        ...SMALL,
        chunkSize: 65536,
      }),
      scriptText("done", SMALL),
    ],
    ["-o", "json", "go"],
    async (r, ws) => {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).result, "done");
      const lines = (await Deno.readTextFile(`${ws.dir}/n.txt`)).trim().split("\n");
      assert.deepEqual(lines, fifty.map((_, i) => String(i)), "in order, each once");
      assert.equal((await Deno.stat(`${ws.dir}/big.txt`)).size, mega.length);
      assert.equal(ws.fake.turnRequests().length, 4);
      // The second "dup" call got an id of its own, so each result names one call.
      const asked = ws.fake.turnRequests()[2].messages.filter((m) => m.role === "assistant");
      const ids = asked.at(-1)!.tool_calls!.map((c) => c.id);
      assert.equal(ids[0], "dup");
      assert.equal(new Set(ids).size, 2, ids.join());
    },
  );
});

Deno.test("adversarial: an answer cut at the output limit is exit 5, printed, and resumable", async () => {
  await using ws = await workspace({
    turns: [
      scriptText("The fix is to change", { ...SMALL, finish_reason: "length" }),
      scriptText("the timeout.", SMALL),
    ],
  });
  const r = await ws.run(["run", "-o", "json", "fix it"]);
  assert.equal(r.code, 5, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.subtype, "error_agent");
  assert.equal(result.result, "The fix is to change", "the partial answer is kept");
  assert.match(result.error, /cut off at its output token limit/);

  const again = await ws.run(["run", "-C", "go on"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "the timeout.\n");
  const history = ws.fake.turnRequests()[1].messages.slice(1).map((m) => [m.role, m.content]);
  assert.deepEqual(history, [
    ["user", "fix it"],
    ["assistant", "The fix is to change"],
    ["user", "go on"],
  ]);
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("adversarial: a filtered answer or a tool call without a name is no success", async () => {
  await scripted(
    [scriptText("I can't", { ...SMALL, finish_reason: "content_filter" })],
    ["fix it"],
    (r) => {
      assert.equal(r.code, 5, r.stderr);
      // A failed run has no final answer on stdout; what streamed is progress on stderr.
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /I can't\n[\s\S]*content filter/);
    },
  );
  await scripted(
    [scriptToolCalls([{ name: "", arguments: { file_path: "a" } }], SMALL)],
    ["-o", "stream-json", "fix it"],
    (r) => {
      assert.equal(r.code, 5, r.stderr);
      const result = events(r.stdout).at(-1)!;
      assert.equal(result.subtype, "error_agent");
      assert.match(String(result.error), /sent none that could be run/);
    },
  );
});
