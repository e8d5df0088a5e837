/**
 * `mopac sessions show|export|search|reindex|rm|list` through the CLI, on a session a
 * real run produced.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { byPrompt, exists, sessionPath } from "./_live.ts";

const PROMPT = "explain the quux module";
const ANSWER = "The quux module frobnicates widgets.";

async function sessions(ws: Workspace, ...args: string[]) {
  return await ws.run(["sessions", ...args]);
}

async function ok(ws: Workspace, ...args: string[]): Promise<string> {
  const r = await sessions(ws, ...args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

Deno.test("sessions: show, export, search, reindex, rm on a session made by a run", async () => {
  await using ws = await workspace({
    turns: byPrompt({
      [PROMPT]: [
        scriptToolCall("bash", { command: "echo looked at quux" }, "call_look", {
          usage: { prompt_tokens: 300, completion_tokens: 20 },
        }),
        scriptText(ANSWER, { usage: { prompt_tokens: 400, completion_tokens: 30 } }),
      ],
    }),
  });
  const run = await ws.run(["run", "-o", "json", PROMPT]);
  assert.equal(run.code, 0, run.stderr);
  const id = JSON.parse(run.stdout).session_id as string;

  const [row] = JSON.parse(await ok(ws, "list", "--json"));
  assert.equal(row.id, id);
  assert.equal(row.message_count, 4);
  assert.deepEqual([row.input_tokens, row.output_tokens], [700, 50]);
  const short = row.short_id as string;
  assert.match(
    await ok(ws, "list"),
    new RegExp(`^${short}\\s.*\\s4\\s+700/50\\s+\\$0\\.0008`, "m"),
  );

  const shown = await ok(ws, "show", short.slice(0, 5));
  for (const part of [`[user]`, PROMPT, "→ bash", "← bash: looked at quux", ANSWER]) {
    assert.ok(shown.includes(part), `show lacks ${part}:\n${shown}`);
  }
  const json = JSON.parse(await ok(ws, "show", "--json", short));
  assert.equal(json.session.id, id);
  assert.deepEqual(json.messages.map((m: { role: string }) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);

  const lines = (await ok(ws, "export", id)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].id, id);
  assert.equal(lines.filter((r) => r.type === "message").length, 4);
  const md = await ok(ws, "export", "--format", "markdown", short);
  assert.ok(md.includes(PROMPT) && md.includes(ANSWER), md);

  assert.match(await ok(ws, "search", "frobnicates"), new RegExp(`^${short}\\s+\\[assistant\\]`));
  const hits = JSON.parse(await ok(ws, "search", "--json", "quux"));
  assert.ok(hits.length >= 2 && hits.every((h: { session_id: string }) => h.session_id === id));
  const none = await sessions(ws, "search", "zyzzyva");
  assert.equal(none.code, 0);
  assert.match(none.stderr, /no messages match "zyzzyva"/);

  assert.equal(await ok(ws, "reindex"), "indexed 1 session\n");
  // index.db is derived: deleted or damaged, it comes back with the same rows.
  for (const damage of ["delete", "garbage"]) {
    const db = `${ws.dir}/.mopac/index.db`;
    for (const f of [db, `${db}-wal`, `${db}-shm`]) await Deno.remove(f).catch(() => {});
    if (damage === "garbage") await Deno.writeTextFile(db, "this is not a database ".repeat(200));
    const [again] = JSON.parse(await ok(ws, "list", "--json"));
    assert.deepEqual(again, row, `after the index was ${damage}d`);
    assert.match(await ok(ws, "search", "frobnicates"), new RegExp(short));
  }

  assert.match(await ok(ws, "rm", short.slice(0, 6)), new RegExp(`^removed ${short}`));
  assert.deepEqual(JSON.parse(await ok(ws, "list", "--json")), []);
  assert.ok(!(await exists(sessionPath(ws.dir, id))));
  const gone = await sessions(ws, "show", short);
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /session not found/);
});
