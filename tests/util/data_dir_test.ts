/** A data dir mopac creates carries a `.gitignore` of `*`, written once even under a race. */
import assert from "node:assert/strict";
import { DATA_DIR_GITIGNORE, ensureDataDir } from "../../src/util/data_dir.ts";
import { runMcpCommand } from "../../src/cli/commands/mcp.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";

Deno.test("ensureDataDir: eight at once make one folder with one .gitignore", async () => {
  const root = await Deno.makeTempDir();
  try {
    const dir = `${root}/deep/down/.mopac`;
    await Promise.all(Array.from({ length: 8 }, () => ensureDataDir(dir)));
    assert.equal(await Deno.readTextFile(`${dir}/.gitignore`), DATA_DIR_GITIGNORE);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [".gitignore"]);
    assert.deepEqual([...Deno.readDirSync(`${root}/deep`)].map((e) => e.name), ["down"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ensureDataDir: an existing folder is left as it is", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/notes.txt`, "mine");
    await ensureDataDir(dir);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["notes.txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp ping logs into a new data dir that ignores itself; --help creates nothing", async () => {
  const root = await Deno.makeTempDir();
  const dataDir = `${root}/.mopac`;
  const out: string[] = [];
  const io = {
    stdout: (s: string) => out.push(s),
    stderr: (s: string) => out.push(s),
    servers: { fx: fixtureStdio() },
    logDir: `${dataDir}/logs`,
    dataDir,
  };
  try {
    assert.equal(await runMcpCommand(["--help"], io), 0);
    assert.deepEqual([...Deno.readDirSync(root)], []);
    assert.equal(await runMcpCommand(["ping", "fx"], io), 0, out.join(""));
    assert.equal(await Deno.readTextFile(`${dataDir}/.gitignore`), DATA_DIR_GITIGNORE);
    assert.ok((await Deno.stat(`${dataDir}/logs/mcp-fx.log`)).isFile);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
