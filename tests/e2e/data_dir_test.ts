/**
 * Where a run keeps its sessions: `.mopac` at the git root (also from a subfolder),
 * `--data-dir` > `MOPAC_DATA_DIR` > `options.data_directory`, and `--ephemeral`, which
 * keeps nothing on disk.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { byPrompt, exists } from "./_live.ts";
import { DATA_DIR_GITIGNORE } from "../../src/util/data_dir.ts";

/** A workspace whose model answers "hi" with "hello". */
function helloWorkspace(config: Record<string, unknown> = {}) {
  return workspace({ turns: byPrompt({ "hi": [scriptText("hello")] }) }, config);
}

async function mopac(ws: Workspace, cwd: string, args: string[], env: Record<string, string> = {}) {
  const perms = { ...ws.perms, env: [...(ws.perms.env as string[]), "MOPAC_DATA_DIR"] };
  const r = await ws.run(args, { cwd, perms, env });
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
  await using ws = await helloWorkspace();
  const sub = await gitRepoWithSub(ws);
  await mopac(ws, sub, ["run", "hi"]);
  assert.equal((await sessionFiles(`${ws.dir}/.mopac`)).length, 1);
  assert.ok(!(await exists(`${sub}/.mopac`)) && !(await exists(`${ws.dir}/pkg/.mopac`)));
  // `sessions` finds the same data dir from the subfolder.
  const list = await mopac(ws, sub, ["sessions", "list", "--json"]);
  assert.equal(JSON.parse(list.stdout).length, 1);
});

Deno.test("data dir: --data-dir beats MOPAC_DATA_DIR beats options.data_directory", async () => {
  // options.data_directory is relative to the project root, the others to the cwd.
  await using ws = await helloWorkspace({ options: { data_directory: "from-config" } });
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
});

Deno.test("data dir: --ephemeral writes nothing, even with tools that keep state", async () => {
  await using ws = await workspace({
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
  for (const args of [["--ephemeral"], ["--ephemeral", "--data-dir", "elsewhere"]]) {
    const r = await mopac(ws, ws.dir, ["run", "-o", "json", ...args, "work"]);
    assert.equal(JSON.parse(r.stdout).result, "all done");
  }
  assert.equal(await Deno.readTextFile(`${ws.dir}/out.txt`), "edited\n");
  assert.ok(!(await exists(`${ws.dir}/.mopac`)), "no default data dir");
  assert.ok(!(await exists(`${ws.dir}/elsewhere`)), "no --data-dir either");
  assert.deepEqual(ws.fake.rejected, []);
  assert.equal(ws.fake.turnRequests().length, 10);
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stderr: "piped" }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** Every path under `dir`, relative and sorted (what a command may have created). */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = `${prefix}${e.name}`;
    out.push(rel);
    if (e.isDirectory && e.name !== ".git") out.push(...await tree(dir, `${rel}/`));
  }
  return out.sort();
}

Deno.test("data dir: a data dir mopac creates ignores itself in git", async () => {
  await using ws = await helloWorkspace();
  await git(ws.dir, "init", "-q");
  await mopac(ws, ws.dir, ["run", "hi"]);
  assert.equal(await Deno.readTextFile(`${ws.dir}/.mopac/.gitignore`), DATA_DIR_GITIGNORE);
  assert.equal((await sessionFiles(`${ws.dir}/.mopac`)).length, 1);
  // git sees the config file the test wrote, and nothing of the data dir.
  assert.deepEqual((await git(ws.dir, "status", "--porcelain", "-uall")).trim().split("\n"), [
    "?? mopac.json",
  ]);
  // A second run in the same data dir leaves the file alone.
  await Deno.writeTextFile(`${ws.dir}/.mopac/.gitignore`, "sessions/\n");
  await mopac(ws, ws.dir, ["run", "hi"]);
  assert.equal(await Deno.readTextFile(`${ws.dir}/.mopac/.gitignore`), "sessions/\n");
});

Deno.test("data dir: a folder that exists already gets no .gitignore", async () => {
  await using ws = await helloWorkspace();
  await Deno.mkdir(`${ws.dir}/mine`);
  await mopac(ws, ws.dir, ["run", "--data-dir", "mine", "hi"]);
  assert.equal((await sessionFiles(`${ws.dir}/mine`)).length, 1);
  assert.ok(!(await exists(`${ws.dir}/mine/.gitignore`)));
  // A nested one that did not exist gets it in the folder mopac made for itself.
  await mopac(ws, ws.dir, ["run", "--data-dir", "a/b/data", "hi"]);
  assert.ok(await exists(`${ws.dir}/a/b/data/.gitignore`));
  assert.ok(!(await exists(`${ws.dir}/a/.gitignore`)));
});

Deno.test("data dir: commands that only look create nothing where there is no data dir", async () => {
  await using ws = await helloWorkspace();
  await git(ws.dir, "init", "-q");
  const before = await tree(ws.dir);
  const looks: Array<[string[], number]> = [
    [["sessions", "list"], 0],
    [["sessions", "list", "--json", "--all"], 0],
    [["sessions", "search", "hello"], 0],
    [["sessions", "show", "abc"], 2],
    [["sessions", "export", "abc"], 2],
    [["sessions", "rm", "abc"], 2],
    [["sessions", "reindex"], 0],
    [["config", "show"], 0],
    [["config", "path"], 0],
    [["config", "validate"], 0],
    [["models", "--json"], 0],
    [["schema"], 0],
    [["sandbox"], 0],
    [["mcp", "list"], 0],
    [["run", "--dry-run", "hi"], 0],
    [["--help"], 0],
    [["--version"], 0],
  ];
  for (const [args, code] of looks) {
    const r = await ws.run(args);
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.deepEqual(await tree(ws.dir), before, `mopac ${args.join(" ")} created something`);
  }
  // `sessions list` says there is nothing rather than failing.
  const list = await ws.run(["sessions", "list", "--json"]);
  assert.deepEqual(JSON.parse(list.stdout), []);
});
