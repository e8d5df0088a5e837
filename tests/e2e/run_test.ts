import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";

const script = () => [
  scriptToolCall("bash", { command: "echo 'hello from bash' > note.txt" }),
  scriptToolCall("view", { file_path: "note.txt" }),
  scriptText("The note says hello from bash."),
];

Deno.test("e2e: bash writes a file, view reads it, the answer is on stdout (narrow flags)", async () => {
  await using ws = await workspace({ turns: script() });
  const r = await ws.run(["run", "write a note"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "The note says hello from bash.\n");
  assert.equal(await Deno.readTextFile(`${ws.dir}/note.txt`), "hello from bash\n");
  assert.deepEqual(ws.fake.rejected, []);
  assert.equal(ws.fake.turnRequests().length, 3);
  // The view result carried the file's content back to the model.
  const last = JSON.stringify(ws.fake.turnRequests()[2].messages);
  assert.match(last, /hello from bash/);
  // The session file exists and holds no secret.
  const sessions = [...Deno.readDirSync(`${ws.dir}/.mopac/sessions`)].filter((e) =>
    e.name.endsWith(".jsonl")
  );
  assert.equal(sessions.length, 1);
  const text = await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${sessions[0].name}`);
  assert.ok(!text.includes(FAKE_ENV.FAKE_API_KEY));
});

Deno.test("e2e: stream-json gives the events in order, the result last", async () => {
  await using ws = await workspace({ turns: script() });
  const r = await ws.run(["run", "-o", "stream-json", "write a note"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  assert.ok(ev.every((e) => e.v === 1));
  const types = ev.map((e) => e.type);
  assert.equal(types[0], "init");
  assert.equal(types.at(-1), "result");
  const kinds = types.filter((t) => t !== "text");
  assert.deepEqual(kinds, [
    "init",
    "request",
    "turn",
    "tool_call",
    "tool_result",
    "request",
    "turn",
    "tool_call",
    "tool_result",
    "request",
    "turn",
    "result",
  ]);
  const result = ev.at(-1)!;
  assert.equal(result.subtype, "success");
  assert.equal(result.exit_code, 0);
  assert.equal(result.num_turns, 3);
  assert.equal(result.result, "The note says hello from bash.");
  assert.equal(result.session_id, ev[0].session_id);
  const init = ev[0] as { tools: string[]; model: string };
  assert.equal(init.model, "fake/fake-model");
  assert.ok(init.tools.includes("bash") && init.tools.includes("view"));
});

Deno.test("e2e: json output is one result object", async () => {
  await using ws = await workspace({ turns: [scriptText("just this")] });
  const r = await ws.run(["run", "-o", "json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  const result = JSON.parse(lines[0]);
  assert.equal(result.type, "result");
  assert.equal(result.result, "just this");
  assert.ok(result.cost_usd > 0);
});

Deno.test("e2e: piped stdin comes first, then the arguments", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  const r = await ws.run(["run", "explain", "this"], { stdin: "error: something broke\n" });
  assert.equal(r.code, 0, r.stderr);
  const msgs = ws.fake.turnRequests()[0].messages as Array<{ role: string; content: unknown }>;
  const user = msgs.filter((m) => m.role === "user").at(-1)!;
  const text = typeof user.content === "string" ? user.content : JSON.stringify(user.content);
  assert.match(
    text,
    /error: something broke\\n\\nexplain this|error: something broke\n\nexplain this/,
  );
});
