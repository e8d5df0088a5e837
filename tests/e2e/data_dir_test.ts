/**
 * Where a run keeps its sessions: `.mopac` at the git root (also from a subfolder),
 * `--data-dir` > `MOPAC_DATA_DIR` > `options.data_directory`, and `--ephemeral`, which
 * keeps nothing on disk.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, fakeWorkspace, type Workspace } from "./_workspace.ts";
import { byPrompt, exists } from "./_live.ts";

function workspace(config: Record<string, unknown> = {}) {
  return fakeWorkspace({ turns: byPrompt({ "hi": [scriptText("hello")] }) }, config);
}

async function mopac(ws: Workspace, cwd: string, args: string[], env: Record<string, string> = {}) {
  const perms = { ...ws.perms, env: [...(ws.perms.env as string[]), "MOPAC_DATA_DIR"] };
  const r = await runMopac(args, { cwd, perms, env: { ...FAKE_ENV, ...env } });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

/** The session files under `dataDir` (none when it does not exist). */
async function sessionFiles(dataDir: string): Promise<string[]> {
  if (!(await exists(`${dataDir}/sessions`))) return [];
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dataDir}/sessions`)) {
    if (e.name.endsWith(".jsonl")) out.push(e.name);
  }
  return out;
}

async function gitRepoWithSub(ws: Workspace): Promise<string> {
  const git = await new Deno.Command("git", { args: ["init", "-q"], cwd: ws.dir }).output();
  assert.equal(git.code, 0, new TextDecoder().decode(git.stderr));
  await Deno.mkdir(`${ws.dir}/pkg/sub`, { recursive: true });
  return `${ws.dir}/pkg/sub`;
}

Deno.test("data dir: .mopac at the git root, also when run from a subfolder", async () => {
  const ws = await workspace();
  try {
    const sub = await gitRepoWithSub(ws);
    await mopac(ws, sub, ["run", "hi"]);
    assert.equal((await sessionFiles(`${ws.dir}/.mopac`)).length, 1);
    assert.ok(!(await exists(`${sub}/.mopac`)) && !(await exists(`${ws.dir}/pkg/.mopac`)));
    // `sessions` finds the same data dir from the subfolder.
    const list = await mopac(ws, sub, ["sessions", "list", "--json"]);
    assert.equal(JSON.parse(list.stdout).length, 1);
  } finally {
    await ws.close();
  }
});

Deno.test("data dir: --data-dir beats MOPAC_DATA_DIR beats options.data_directory", async () => {
  // options.data_directory is relative to the project root, the others to the cwd.
  const ws = await workspace({ options: { data_directory: "from-config" } });
  try {
    const sub = await gitRepoWithSub(ws);
    const env = { MOPAC_DATA_DIR: "from-env" };
    await mopac(ws, sub, ["run", "hi"]);
    assert.equal((await sessionFiles(`${ws.dir}/from-config`)).length, 1);

    await mopac(ws, sub, ["run", "hi"], env);
    assert.equal((await sessionFiles(`${sub}/from-env`)).length, 1);

    await mopac(ws, sub, ["run", "--data-dir", "from-flag", "hi"], env);
    assert.equal((await sessionFiles(`${sub}/from-flag`)).length, 1);

    // Each place got exactly its own run; the default place got none.
    assert.equal((await sessionFiles(`${ws.dir}/from-config`)).length, 1);
    assert.equal((await sessionFiles(`${sub}/from-env`)).length, 1);
    assert.ok(!(await exists(`${ws.dir}/.mopac`)));
    const listed = await mopac(ws, sub, ["sessions", "list", "--json", "--data-dir", "from-flag"]);
    assert.equal(JSON.parse(listed.stdout).length, 1);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await ws.close();
  }
});

Deno.test("data dir: --ephemeral writes nothing, even with tools that keep state", async () => {
  const ws = await fakeWorkspace({
    turns: byPrompt({
      "work": [
        scriptToolCall("bash", { command: "echo made > out.txt" }),
        scriptToolCall("todos", { todos: [{ content: "Check", status: "in_progress" }] }),
        scriptToolCall("view", { file_path: "out.txt" }),
        scriptToolCall("edit", { file_path: "out.txt", old_string: "made", new_string: "edited" }),
        scriptText("all done"),
      ],
    }),
  });
  try {
    for (const args of [["--ephemeral"], ["--ephemeral", "--data-dir", "elsewhere"]]) {
      const r = await mopac(ws, ws.dir, ["run", "-o", "json", ...args, "work"]);
      assert.equal(JSON.parse(r.stdout).result, "all done");
    }
    assert.equal(await Deno.readTextFile(`${ws.dir}/out.txt`), "edited\n");
    assert.ok(!(await exists(`${ws.dir}/.mopac`)), "no default data dir");
    assert.ok(!(await exists(`${ws.dir}/elsewhere`)), "no --data-dir either");
    assert.deepEqual(ws.fake.rejected, []);
    assert.equal(ws.fake.turnRequests().length, 10);
  } finally {
    await ws.close();
  }
});
