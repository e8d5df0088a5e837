/**
 * The stdout contract of text mode: exactly the final answer, so `$(mopac run …)` and
 * `| jq` work. Text before tool calls and rejected `--output-schema` attempts are
 * progress on stderr; `--output-last-message FILE` gets the answer in every format
 * and is left empty by a run without one.
 */
import assert from "node:assert/strict";
import { type ScriptedTurn, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { contentText } from "./_live.ts";
import { workspace } from "../_support/workspace.ts";

const SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] } },
  required: ["verdict"],
};

Deno.test("text mode: stdout is exactly the final answer (the validated JSON with --output-schema); --output-last-message in every format", async () => {
  // Per run (its first user message), the turns by the number of answers so far.
  const script: Record<string, ScriptedTurn[]> = {
    look: [
      scriptToolCall("ls", { path: "." }, undefined, { text: "Let me look around first." }),
      scriptText("Looks fine."),
    ],
    judge: [scriptText("Looks fine."), scriptText('```json\n{"verdict": "pass"}\n```')],
  };
  await using ws = await workspace({
    turns: (req) => {
      const first = contentText(req.messages.find((m) => m.role === "user")!);
      return script[first]?.[req.messages.filter((m) => m.role === "assistant").length];
    },
  });

  const plain = await ws.run([
    "run",
    "--tools",
    "ls",
    "--output-last-message",
    "answer.txt",
    "look",
  ]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, "Looks fine.\n");
  assert.match(plain.stderr, /Let me look around first\.\n→ ls/);
  assert.equal(await Deno.readTextFile(`${ws.dir}/answer.txt`), "Looks fine.\n");

  await Deno.writeTextFile(`${ws.dir}/schema.json`, JSON.stringify(SCHEMA));
  const schema = await ws.run([
    "run",
    "--tools",
    "ls",
    "--output-schema",
    "schema.json",
    "-o",
    "json",
    "--output-last-message",
    "verdict.json",
    "judge",
  ]);
  assert.equal(schema.code, 0, schema.stderr);
  assert.equal(JSON.parse(schema.stdout).structured_output.verdict, "pass");
  assert.equal(await Deno.readTextFile(`${ws.dir}/verdict.json`), '{"verdict":"pass"}\n');

  const text = await ws.run(["run", "--tools", "ls", "--output-schema", "schema.json", "judge"]);
  assert.equal(text.code, 0, text.stderr);
  // "Looks fine." was rejected by the schema: shown on stderr, never on stdout.
  assert.equal(text.stdout, '{"verdict":"pass"}\n');
  assert.deepEqual(JSON.parse(text.stdout), { verdict: "pass" });
  assert.match(text.stderr, /Looks fine\./);
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("text mode: a failed run prints nothing on stdout and empties --output-last-message", async () => {
  await using ws = await workspace({
    turns: () => scriptToolCall("ls", { path: "." }, undefined, { text: "Looking." }),
  });
  await Deno.writeTextFile(`${ws.dir}/answer.txt`, "an answer from an earlier run\n");
  const r = await ws.run([
    "run",
    "--tools",
    "ls",
    "--max-turns",
    "1",
    "--output-last-message",
    "answer.txt",
    "look",
  ]);
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /Looking\.\n[\s\S]*mopac: max turns reached/);
  assert.equal(await Deno.readTextFile(`${ws.dir}/answer.txt`), "");

  const noFolder = await ws.run(["run", "--output-last-message", "nope/answer.txt", "x"]);
  assert.equal(noFolder.code, 2);
  assert.match(noFolder.stderr, /--output-last-message: the folder .*nope does not exist/);
});
