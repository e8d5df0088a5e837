/**
 * Resuming through the CLI: which session `-C` and `-s` pick, the errors when they
 * cannot pick one, and what a resumed run gets back (model, todos, viewed files).
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { openSessionStore, type SessionSummary } from "../../src/session/mod.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { byPrompt, contentText, lastUserText } from "./_live.ts";

async function mopac(ws: Workspace, ...args: string[]) {
  return await ws.run(args);
}

/** A run that must succeed; returns its stream-json events. */
async function run(ws: Workspace, ...args: string[]) {
  const r = await mopac(ws, "run", "-o", "stream-json", ...args);
  assert.equal(r.code, 0, r.stderr);
  return events(r.stdout);
}

async function list(ws: Workspace, ...flags: string[]): Promise<SessionSummary[]> {
  const r = await mopac(ws, "sessions", "list", "--json", ...flags);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function firstUserOf(ws: Workspace, request: number): string {
  const msgs = ws.fake.turnRequests()[request].messages;
  return contentText(msgs.find((m) => m.role === "user")!);
}

Deno.test("resume: -C continues the latest top-level session, never a sub-agent's", async () => {
  await using ws = await workspace({
    turns: byPrompt({
      "first task": [scriptText("first done")],
      "delegate it": [
        scriptToolCall("agent", { prompt: "sub task please" }, "call_agent"),
        scriptText("parent done"),
      ],
      "sub task please": [scriptText("sub result")],
      "again": [scriptText("again done")],
    }),
  });
  await run(ws, "first task");
  const parentId = (await run(ws, "delegate it"))[0].session_id;
  const all = await list(ws, "--all");
  assert.equal(all.length, 3);
  const child = all.find((s) => s.parent_id === parentId)!;
  assert.ok(child, "the agent tool made a child session");
  assert.deepEqual((await list(ws)).map((s) => s.id).includes(child.id), false);

  // Make the child the most recently updated session of all.
  const store = await openSessionStore(`${ws.dir}/.mopac`);
  try {
    const h = await store.open(child.id);
    const at = Date.now() + 1000;
    await h.saveMessage({
      id: crypto.randomUUID(),
      role: "user",
      parts: [{ type: "text", text: "a late note" }],
      created_at: at,
      updated_at: at,
    }, { flush: true });
    await h.close();
  } finally {
    store.close();
  }
  assert.equal((await list(ws, "--all"))[0].id, child.id);

  const ev = await run(ws, "-C", "again");
  assert.equal(ev[0].session_id, parentId);
  const last = ws.fake.turnRequests().at(-1)!;
  assert.equal(lastUserText(last), "again");
  assert.equal(contentText(last.messages.find((m) => m.role === "user")!), "delegate it");
  assert.match(JSON.stringify(last.messages), /sub result/);
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("resume: -s takes a prefix of the short id; ambiguous, unknown and -C with -s are exit 2", async () => {
  await using ws = await workspace({
    turns: byPrompt({
      "alpha": [scriptText("a")],
      "beta": [scriptText("b")],
      "more": [scriptText("more done")],
    }),
  });
  const a = (await run(ws, "alpha"))[0].session_id as string;
  const b = (await run(ws, "beta"))[0].session_id as string;
  const listed = await list(ws);
  const [shortA, shortB] = [a, b].map((id) => listed.find((s) => s.id === id)!.short_id);

  // The older session, by 6 characters of its short id.
  const ev = await run(ws, "-s", shortA.slice(0, 6), "more");
  assert.equal(ev[0].session_id, a);
  assert.equal(firstUserOf(ws, ws.fake.turnRequests().length - 1), "alpha");

  // Time-ordered ids made a second apart share their first digits.
  let common = 0;
  while (a[common] === b[common]) common++;
  assert.ok(common >= 4, `${a} and ${b} share a prefix`);
  const amb = await mopac(ws, "run", "-s", a.slice(0, common), "x");
  assert.equal(amb.code, 2, amb.stderr);
  assert.match(amb.stderr, /ambiguous; it matches 2 sessions/);
  assert.ok(amb.stderr.includes(shortA) && amb.stderr.includes(shortB));

  const unknown = await mopac(ws, "run", "-s", "0000000", "x");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /session not found: 0000000/);

  const both = await mopac(ws, "run", "-C", "-s", shortA, "x");
  assert.equal(both.code, 2);
  assert.match(both.stderr, /-C and -s cannot be used together/);

  assert.equal(ws.fake.turnRequests().length, 3, "the refused runs sent nothing");
  assert.deepEqual(ws.fake.rejected, []);
});

/** Adds a second model to the fake provider of the workspace's mopac.json. */
async function addModel(ws: Workspace, id: string) {
  const path = `${ws.dir}/mopac.json`;
  const config = JSON.parse(await Deno.readTextFile(path));
  const models = config.providers.fake.models;
  models.push({ ...models[0], id, name: id });
  await Deno.writeTextFile(path, JSON.stringify(config, null, 2));
}

Deno.test("resume: the model of the last assistant message comes back unless -m is given", async () => {
  await using ws = await workspace({ turns: () => scriptText("ok") });
  await addModel(ws, "fake-model-2");
  const steps: Array<[string[], string]> = [
    [["-m", "fake/fake-model-2", "one"], "fake-model-2"],
    [["-C", "two"], "fake-model-2"],
    [["-C", "-m", "fake/fake-model", "three"], "fake-model"],
    [["-C", "four"], "fake-model"],
  ];
  for (const [args, model] of steps) {
    const ev = await run(ws, ...args);
    assert.equal(ev[0].model, `fake/${model}`, args.join(" "));
    assert.equal(ws.fake.turnRequests().at(-1)!.model, model, args.join(" "));
  }
  assert.equal((await list(ws)).length, 1);
});

Deno.test("resume: todos and viewed files come back, so an edit needs no new view", async () => {
  const todo = (status: string) => ({ todos: [{ content: "Update notes", status }] });
  const edit = { file_path: "notes.txt", old_string: "draft", new_string: "final" };
  await using ws = await workspace({
    turns: byPrompt({
      "edit blind": [scriptToolCall("edit", edit, "call_blind"), scriptText("refused")],
      "plan and read": [
        scriptToolCall("todos", todo("in_progress"), "call_plan"),
        scriptToolCall("view", { file_path: "notes.txt" }, "call_view"),
        scriptText("read it"),
      ],
      "now edit": [
        scriptToolCall("edit", edit, "call_edit"),
        scriptToolCall("todos", todo("completed"), "call_done"),
        scriptText("edited"),
      ],
    }),
  });
  await Deno.writeTextFile(`${ws.dir}/notes.txt`, "a draft note\n");
  // Control: in a session that never viewed the file, the same edit is refused.
  const blind = await run(ws, "edit blind");
  const refused = blind.find((e) => e.type === "tool_result" && e.id === "call_blind")!;
  assert.equal(refused.is_error, true);
  assert.match(refused.output as string, /must view/);

  const first = await run(ws, "plan and read");
  const ev = await run(ws, "-C", "now edit");
  assert.equal(ev[0].session_id, first[0].session_id);
  const edited = ev.find((e) => e.type === "tool_result" && e.id === "call_edit")!;
  assert.equal(edited.is_error, false, edited.output as string);
  assert.equal(await Deno.readTextFile(`${ws.dir}/notes.txt`), "a final note\n");
  // The todos tool saw the restored list: the item moved from in progress to done.
  const done = ev.find((e) => e.type === "tool_result" && e.id === "call_done")!;
  assert.match(done.output as string, /Just completed: Update notes/);

  const show = await mopac(ws, "sessions", "show", "--json", first[0].session_id as string);
  assert.equal(show.code, 0, show.stderr);
  const meta = JSON.parse(show.stdout).meta;
  assert.deepEqual(meta.todos, todo("completed").todos);
  assert.ok(Object.keys(meta.viewed).some((p) => p.endsWith("/notes.txt")));
  assert.deepEqual(ws.fake.rejected, []);
});
