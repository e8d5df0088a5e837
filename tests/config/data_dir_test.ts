import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultDataDir, findGitRoot, resolveDataDir } from "../../src/config/mod.ts";
import { makeSandbox } from "./_helpers.ts";

Deno.test("the data dir is .mopac at the git root, found from a subfolder", async () => {
  const sb = await makeSandbox();
  try {
    const sub = join(sb.repo, "a", "b");
    await Deno.mkdir(sub, { recursive: true });
    assert.equal(await findGitRoot(sub), sb.repo);
    const loaded = await sb.load({ cwd: sub });
    assert.equal(loaded.gitRoot, sb.repo);
    assert.equal(loaded.workspaceRoot, sb.repo);
    assert.equal(loaded.dataDir, join(sb.repo, ".mopac"));
    assert.deepEqual(await defaultDataDir(sub), {
      workspaceRoot: sb.repo,
      dataDir: join(sb.repo, ".mopac"),
    });
  } finally {
    await sb.cleanup();
  }
});

Deno.test("outside a git repo the cwd is the root; a .git file (worktree) counts as a repo", async () => {
  const sb = await makeSandbox({ git: false });
  try {
    assert.equal(await findGitRoot(sb.repo), undefined);
    const loaded = await sb.load();
    assert.equal(loaded.gitRoot, undefined);
    assert.equal(loaded.dataDir, join(sb.repo, ".mopac"));
    await sb.write(join(sb.repo, ".git"), "gitdir: /elsewhere/.git/worktrees/x\n");
    await Deno.mkdir(join(sb.repo, "src"));
    assert.equal(await findGitRoot(join(sb.repo, "src")), sb.repo);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("--data-dir > MOPAC_DATA_DIR > options.data_directory, and the chosen dir's mopac.json is read", async () => {
  const sb = await makeSandbox();
  try {
    const sub = join(sb.repo, "pkg");
    await Deno.mkdir(sub);
    await sb.write(
      join(sb.repo, "mopac.json"),
      `{ "options": { "data_directory": "state/agent" } }`,
    );
    const configured = join(sb.repo, "state", "agent");
    const fromEnv = join(sub, "env-data");
    const fromFlag = join(sb.root, "flag-data");
    for (const [dir, turns] of [[configured, 1], [fromEnv, 2], [fromFlag, 3]] as const) {
      await sb.write(join(dir, "mopac.json"), `{ "limits": { "max_turns": ${turns} } }`);
    }

    let loaded = await sb.load({ cwd: sub });
    assert.equal(
      loaded.dataDir,
      configured,
      "options.data_directory is relative to the project root",
    );
    assert.equal(loaded.config.limits?.max_turns, 1);
    assert.equal(loaded.sourceOf("limits.max_turns"), join(configured, "mopac.json"));

    sb.env.MOPAC_DATA_DIR = "env-data";
    loaded = await sb.load({ cwd: sub });
    assert.equal(loaded.dataDir, fromEnv, "MOPAC_DATA_DIR is relative to the cwd");
    assert.equal(loaded.config.limits?.max_turns, 2);
    assert.equal(loaded.config.options?.data_directory, fromEnv);
    assert.equal(loaded.sourceOf("options.data_directory"), "env MOPAC_DATA_DIR");

    loaded = await sb.load({ cwd: sub, dataDir: "../../../flag-data" });
    assert.equal(loaded.dataDir, fromFlag);
    assert.equal(loaded.config.limits?.max_turns, 3);
    assert.equal(loaded.sourceOf("options.data_directory"), "command line");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("an absolute or ~ data_directory is used as given", () => {
  const base = { cwd: "/w/repo/sub", workspaceRoot: "/w/repo", home: "/home/u" };
  assert.equal(resolveDataDir({ ...base, configured: "/var/mopac" }), "/var/mopac");
  assert.equal(resolveDataDir({ ...base, configured: "~/.mopac-data" }), "/home/u/.mopac-data");
  assert.equal(resolveDataDir({ ...base, configured: "d" }), "/w/repo/d");
  assert.equal(resolveDataDir({ ...base, env: "e" }), "/w/repo/sub/e");
  assert.equal(resolveDataDir(base), "/w/repo/.mopac");
});
