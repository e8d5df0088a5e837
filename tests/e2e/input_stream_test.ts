/**
 * `--input-format stream-json` end to end: user messages as JSON lines on stdin, each
 * a turn of one session with its own `result`; a bad line or a failing message ends
 * the run with its exit code; flags that make no sense with it are exit 2.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";
import { contentText } from "./_live.ts";

const user = (content: unknown) =>
  JSON.stringify({ type: "user", message: { role: "user", content }, session_id: "ignored" });

Deno.test("e2e --input-format stream-json: each line is a turn of one session, each with a result", async () => {
  await using ws = await workspace({
    turns: [
      scriptText("first answer"),
      scriptToolCall("view", { file_path: "mopac.json" }),
      scriptText("second answer"),
    ],
  });
  const stdin = [user("first question"), "", user([{ type: "text", text: "second question" }])]
    .join("\n") + "\n";
  const r = await ws.run(["run", "--input-format", "stream-json"], { stdin });
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  assert.equal(ev[0].type, "init");
  assert.equal(ev.filter((e) => e.type === "init").length, 1);
  const results = ev.filter((e) => e.type === "result");
  assert.deepEqual(results.map((e) => [e.subtype, e.result]), [
    ["success", "first answer"],
    ["success", "second answer"],
  ]);
  assert.equal(results[0].session_id, ev[0].session_id);
  assert.equal(results[1].session_id, ev[0].session_id);
  assert.equal(ev.at(-1)!.type, "result");
  // The second message went on from the first one's history.
  const convo = ws.fake.turnRequests()[1].messages.filter((m) => m.role !== "system")
    .map((m) => `${m.role}: ${contentText(m)}`);
  assert.deepEqual(convo, [
    "user: first question",
    "assistant: first answer",
    "user: second question",
  ]);
  assert.equal(
    [...Deno.readDirSync(`${ws.dir}/.mopac/sessions`)].filter((e) => e.name.endsWith(".jsonl"))
      .length,
    1,
  );
});

Deno.test("e2e --input-format stream-json: a bad line ends the run (exit 2) after the good ones", async () => {
  await using ws = await workspace({ turns: [scriptText("ok"), scriptText("never")] });
  const stdin = `${user("hello")}\n{"type":"assistant","message":{}}\n${user("never read")}\n`;
  const r = await ws.run(["run", "--input-format", "stream-json"], { stdin });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /--input-format stream-json: line 2: type "assistant": only "user" messages/,
  );
  const results = events(r.stdout).filter((e) => e.type === "result");
  assert.deepEqual(results.map((e) => e.exit_code), [0, 2]);
  assert.equal(ws.fake.turnRequests().length, 1);
});

Deno.test("e2e --input-format stream-json: a message that fails stops the run with its code", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("view", { file_path: "mopac.json" }), scriptText("never")],
  });
  const stdin = `${user("one")}\n${user("two")}\n`;
  const r = await ws.run(["run", "--input-format", "stream-json", "--max-turns", "1"], { stdin });
  assert.equal(r.code, 4, r.stderr);
  const results = events(r.stdout).filter((e) => e.type === "result");
  assert.deepEqual(results.map((e) => e.subtype), ["error_max_turns"]);
});

Deno.test("e2e --input-format: bad combinations and empty input are exit 2", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  const cases: Array<[string[], string, RegExp]> = [
    [["--input-format", "yaml", "hi"], "", /--input-format takes text or stream-json, got 'yaml'/],
    [["--input-format", "stream-json", "-o", "json"], "", /needs -o stream-json, got -o json/],
    [["--input-format", "stream-json", "hi"], "", /takes no prompt arguments/],
    [["--input-format", "stream-json", "-i", "x.png"], "", /takes images in the messages, not -i/],
    [["--input-format", "stream-json"], "\n\n", /no prompt given: stdin held no message/],
    [["--input-format", "stream-json"], "not json\n", /line 1: not JSON/],
    [
      ["--input-format", "stream-json"],
      user([{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }]) +
      "\n",
      /line 1: the model fake\/fake-model does not accept image attachments/,
    ],
  ];
  for (const [flags, stdin, message] of cases) {
    const r = await ws.run(["run", ...flags], { stdin });
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, flags.join(" "));
  }
  assert.equal(ws.fake.turnRequests().length, 0);
});

Deno.test("e2e --input-format stream-json: an image block reaches the model as an image_url part", async () => {
  await using ws = await workspace({ turns: [scriptText("a dot")] });
  const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
  config.providers.fake.models[0].supports_attachments = true;
  await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
  const png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const stdin = user([
    { type: "text", text: "what is it?" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
  ]) + "\n";
  const r = await ws.run(["run", "--input-format", "stream-json"], { stdin });
  assert.equal(r.code, 0, r.stderr);
  const msg = ws.fake.turnRequests()[0].messages.find((m) => m.role === "user")!;
  assert.deepEqual(msg.content, [
    { type: "text", text: "what is it?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
  ]);
});
