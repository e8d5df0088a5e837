/**
 * `--session-id UUID` and `--fork` end to end: the id a new session gets, refusing an
 * id that exists, and a fork that continues a session's history in a new session
 * while the original file stays byte for byte as it was.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import type { ChatMessageIn } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { contentText } from "./_live.ts";

async function runJson(ws: Workspace, ...args: string[]) {
  const r = await ws.run(["run", "-o", "json", ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { session_id: string; result: string };
}

const sessionFile = (ws: Workspace, id: string) => `${ws.dir}/.mopac/sessions/${id}.jsonl`;

function conversation(messages: ChatMessageIn[]): string[] {
  return messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${contentText(m)}`);
}

Deno.test("e2e --session-id: the new session gets the id; an id that exists is exit 2", async () => {
  await using ws = await workspace({ turns: [scriptText("one"), scriptText("never")] });
  const id = "0b5e8c1d-3f4a-4b6c-9d2e-1a2b3c4d5e6f";
  // Upper case is accepted and stored in lower case, like mopac's own ids.
  const first = await runJson(ws, "--session-id", id.toUpperCase(), "hello");
  assert.equal(first.session_id, id);
  const before = await Deno.readTextFile(sessionFile(ws, id));
  assert.equal(JSON.parse(before.split("\n")[0]).id, id);

  const again = await ws.run(["run", "--session-id", id, "hello again"]);
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, new RegExp(`--session-id ${id}: a session with this id exists`));
  assert.equal(await Deno.readTextFile(sessionFile(ws, id)), before);
  assert.equal(ws.fake.turnRequests().length, 1);
  // `-s` finds it by the chosen id.
  const listed = await ws.run(["sessions", "show", id]);
  assert.equal(listed.code, 0, listed.stderr);
});

Deno.test("e2e --fork: the history is copied into a new session; the original is untouched", async () => {
  await using ws = await workspace({
    turns: [scriptText("first answer"), scriptText("forked answer"), scriptText("latest")],
  });
  const original = await runJson(ws, "first question");
  const before = await Deno.readTextFile(sessionFile(ws, original.session_id));

  const forkId = "7d0c2a9e-5b1f-4c3d-8e7f-6a5b4c3d2e1f";
  const fork = await runJson(
    ws,
    "-s",
    original.session_id.slice(0, 8),
    "--fork",
    "--session-id",
    forkId,
    "second question",
  );
  assert.equal(fork.session_id, forkId);
  assert.equal(fork.result, "forked answer");
  // The model saw the original's history, then the new prompt.
  assert.deepEqual(conversation(ws.fake.turnRequests()[1].messages), [
    "user: first question",
    "assistant: first answer",
    "user: second question",
  ]);
  assert.equal(await Deno.readTextFile(sessionFile(ws, original.session_id)), before);
  const header = JSON.parse((await Deno.readTextFile(sessionFile(ws, forkId))).split("\n")[0]);
  assert.equal(header.forked_from, original.session_id);
  assert.equal(header.parent_id, undefined);

  // -C --fork forks the latest (the fork itself now) under a fresh id.
  const latest = await runJson(ws, "-C", "--fork", "third question");
  assert.notEqual(latest.session_id, forkId);
  assert.deepEqual(conversation(ws.fake.turnRequests()[2].messages).slice(-2), [
    "assistant: forked answer",
    "user: third question",
  ]);
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("e2e --session-id/--fork: bad input is exit 2 naming the flag, with no request", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  const cases: Array<[string[], RegExp]> = [
    [["--session-id", "not-a-uuid"], /--session-id needs a UUID, got 'not-a-uuid'/],
    [["--fork"], /--fork needs -C or -s/],
    [
      ["-C", "--session-id", "0b5e8c1d-3f4a-4b6c-9d2e-1a2b3c4d5e6f"],
      /--session-id names a new session/,
    ],
    [["-s", "deadbeef", "--fork"], /session not found: deadbeef/],
  ];
  for (const [flags, message] of cases) {
    const r = await ws.run(["run", ...flags, "hi"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
  assert.equal(ws.fake.requests.length, 0);
});
