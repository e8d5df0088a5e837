import assert from "node:assert/strict";
import { join } from "node:path";
import { runSessionsCommand } from "../../src/cli/commands/sessions.ts";
import { openSessionStore } from "../../src/session/mod.ts";
import { SessionBusyError, UsageError } from "../../src/util/errors.ts";
import { call, finish, msg, result, text, usage, withDataDir } from "./_helpers.ts";

async function run(dataDir: string, ...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runSessionsCommand(args, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    dataDir,
  });
  return { code, stdout, stderr };
}

async function seed(dir: string) {
  const store = await openSessionStore(dir);
  const a = await store.create({ cwd: "/repo", title: "fix the lint" });
  await a.saveMessage(msg("user", [text("please fix the lint errors")]), { flush: true });
  await a.saveMessage(
    msg("assistant", [
      text("Running it."),
      call("c1", "bash", '{"command":"deno lint"}'),
      finish("tool_calls"),
    ], {
      usage: usage(1200, 80, 200),
      cost_usd: 0.0123,
      model: "litellm/gpt-x",
    }),
    { flush: true },
  );
  await a.saveMessage(msg("tool", [result("c1", "Found 2 problems")]), { flush: true });
  await a.recordChange({ path: "/repo/a.ts", before: "let x", after: "const x" });
  await a.saveMeta({ todos: [{ content: "lint", status: "completed" }] });
  await a.close();
  const child = await store.create({ cwd: "/repo", parent_id: a.id, title: "sub task" });
  await child.close();
  const b = await store.create({ cwd: "/repo" });
  await b.saveMessage(msg("user", [text("unrelated question")]), { flush: true });
  await b.close();
  store.close();
  return { a: a.header, child: child.header, b: b.header };
}

Deno.test("sessions list: table, --json, --limit, --all", async () => {
  await withDataDir(async (dir) => {
    const s = await seed(dir);
    const table = await run(dir, "list");
    assert.equal(table.code, 0);
    const rows = table.stdout.trimEnd().split("\n");
    assert.match(
      rows[0],
      /^ID\s+STATUS\s+UPDATED \(UTC\)\s+MSGS\s+TOKENS IN\/OUT\s+COST\s+TITLE$/,
    );
    // Seeded sessions never ran: no status (runs record theirs: e2e sessions_cli_test).
    assert.match(rows.find((r) => r.startsWith(s.a.short_id))!, /^\w{8}\s+-\s+\d{4}-/);
    assert.equal(rows.length, 3, "header + 2 top-level sessions");
    const rowA = rows.find((r) => r.startsWith(s.a.short_id))!;
    assert.match(rowA, /\s3\s+1200\/80\s+\$0\.0123\s+fix the lint$/);
    assert.ok(rows.some((r) => r.startsWith(s.b.short_id) && r.endsWith("(untitled)")));

    const json = await run(dir, "list", "--json", "--limit", "1");
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.length, 1);
    assert.equal(parsed[0].id, s.b.id, "newest first");

    const all = await run(dir, "list", "--all");
    assert.ok(all.stdout.includes("↳ sub task"));

    await withDataDir(async (d2) => {
      const r = await run(d2, "list");
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /no sessions/);
    });
  });
});

Deno.test("sessions show: text and --json", async () => {
  await withDataDir(async (dir) => {
    const s = await seed(dir);
    const r = await run(dir, "show", s.a.short_id.slice(0, 6));
    assert.equal(r.code, 0);
    assert.ok(r.stdout.startsWith(`${s.a.short_id}  ${s.a.id}`));
    assert.match(r.stdout, /\[user\]\nplease fix the lint errors/);
    assert.match(
      r.stdout,
      /\[assistant\] litellm\/gpt-x\nRunning it\.\n→ bash \{"command":"deno lint"\}/,
    );
    assert.match(r.stdout, /← bash: Found 2 problems/);
    const j = JSON.parse((await run(dir, "show", s.a.id, "--json")).stdout);
    assert.equal(j.session.id, s.a.id);
    assert.equal(j.messages.length, 3);
    assert.deepEqual(j.meta.todos, [{ content: "lint", status: "completed" }]);
    assert.equal(j.changes[0].change.path, "/repo/a.ts");
  });
});

Deno.test("sessions export: jsonl is a clean session file; markdown reads well", async () => {
  await withDataDir(async (dir) => {
    const s = await seed(dir);
    const jsonl = await run(dir, "export", s.a.short_id);
    const recs = jsonl.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(recs.map((r) => r.type), [
      "session",
      "message",
      "message",
      "message",
      "meta",
      "file_change",
    ]);
    // Importable: the export, placed in another data dir, loads as the same session.
    await withDataDir(async (other) => {
      await Deno.mkdir(join(other, "sessions"));
      await Deno.writeTextFile(join(other, "sessions", `${s.a.id}.jsonl`), jsonl.stdout);
      const store = await openSessionStore(other);
      const orig = await openSessionStore(dir);
      const x = await store.read(s.a.id);
      const y = await orig.read(s.a.id);
      assert.deepEqual(x.messages, y.messages);
      assert.deepEqual(x.changes, y.changes);
      assert.deepEqual(x.meta.todos, y.meta.todos);
      store.close();
      orig.close();
    });
    const md = await run(dir, "export", s.a.id, "--format", "markdown");
    assert.ok(md.stdout.startsWith("# fix the lint\n"));
    assert.match(md.stdout, /## User\n\nplease fix the lint errors/);
    assert.match(md.stdout, /## Assistant \(litellm\/gpt-x\)/);
    assert.match(
      md.stdout,
      /\*\*Tool call\*\* `bash` \(c1\)\n\n```json\n\{\n {2}"command": "deno lint"\n\}\n```/,
    );
    assert.match(md.stdout, /- \/repo\/a\.ts \(edited/);
  });
});

Deno.test("sessions search, rm, reindex", async () => {
  await withDataDir(async (dir) => {
    const s = await seed(dir);
    const hit = await run(dir, "search", "lint", "errors");
    assert.equal(hit.code, 0);
    assert.ok(hit.stdout.startsWith(`${s.a.short_id}  [user]  please fix the [lint] [errors]`));
    const none = await run(dir, "search", "zebra");
    assert.equal(none.stdout, "");
    assert.match(none.stderr, /no messages match/);
    assert.equal(
      JSON.parse((await run(dir, "search", "unrelated", "--json")).stdout)[0].session_id,
      s.b.id,
    );

    await Deno.remove(join(dir, "index.db"));
    const re = await run(dir, "reindex");
    assert.equal(re.stdout, "indexed 3 sessions\n");

    const rm = await run(dir, "rm", s.a.short_id);
    assert.equal(rm.stdout, `removed ${s.a.short_id} (fix the lint)\n`);
    const left = JSON.parse((await run(dir, "list", "--json", "--all")).stdout);
    assert.deepEqual(left.map((x: { id: string }) => x.id), [s.b.id], "child removed with parent");
  });
});

Deno.test("sessions: usage errors return 2, unknown ids and busy sessions throw typed errors", async () => {
  await withDataDir(async (dir) => {
    const s = await seed(dir);
    for (
      const args of [
        [],
        ["frobnicate"],
        ["list", "--limit", "0"],
        ["list", "--limit", "x"],
        ["list", "extra"],
        ["show"],
        ["show", "a", "b"],
        ["export", s.a.id, "--format", "pdf"],
        ["rm", "--json", s.a.id],
        ["search"],
        ["list", "--bogus"],
      ]
    ) {
      const r = await run(dir, ...args);
      assert.equal(r.code, 2, args.join(" "));
      assert.ok(
        args.length === 0 ? r.stdout.includes("Usage") : r.stderr.length > 0,
        args.join(" "),
      );
    }
    assert.equal((await run(dir, "--help")).code, 0);
    await assert.rejects(run(dir, "show", "deadbeef"), UsageError);
    await assert.rejects(run(dir, "export", "zz"), /session not found: zz/);
    const store = await openSessionStore(dir);
    const h = await store.open(s.b.id);
    await assert.rejects(run(dir, "rm", s.b.id), SessionBusyError);
    await h.close();
    store.close();
  });
});
