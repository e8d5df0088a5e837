/**
 * `--add-dir DIR` end to end: the file tools and the jailed bash write there, the model
 * is told, `paths.deny` still holds in it, and without the flag the same writes are
 * denied; bad folders are exit 2 naming the flag.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { JAIL } from "../_support/jail.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { toolResults } from "./_tool_results.ts";

async function withExtra(fn: (extra: string) => Promise<void>) {
  const extra = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-add-dir-" }));
  try {
    await fn(extra);
  } finally {
    await Deno.remove(extra, { recursive: true });
  }
}

const perms = (ws: Workspace, extra: string) => ({
  ...ws.perms,
  read: [...ws.perms.read!, extra],
  write: [...ws.perms.write!, extra],
});

Deno.test("e2e --add-dir: file tools and jailed bash write there; paths.deny still holds", async () => {
  const turns = (extra: string) => [
    scriptToolCall("write", { file_path: `${extra}/notes/out.txt`, content: "from write\n" }),
    scriptToolCall("bash", { command: `echo from bash > ${extra}/bash.txt` }),
    scriptToolCall("write", { file_path: `${extra}/key.pem`, content: "secret" }),
    scriptToolCall("bash", { command: `cat ${extra}/old.pem; echo end` }),
    scriptText("done"),
  ];
  await withExtra(async (extra) => {
    await Deno.writeTextFile(`${extra}/old.pem`, "PEM-CONTENT");
    await using run = await workspace({ turns: turns(extra) });
    const r = await run.run(
      ["run", "--add-dir", extra, "-c", 'agents.coder.paths.deny=["**/*.pem"]', "go"],
      { perms: perms(run, extra) },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await Deno.readTextFile(`${extra}/notes/out.txt`), "from write\n");
    assert.equal(await Deno.readTextFile(`${extra}/bash.txt`), "from bash\n");
    await assert.rejects(() => Deno.stat(`${extra}/key.pem`), Deno.errors.NotFound);
    const reqs = run.fake.turnRequests();
    const system = String(reqs[0].messages[0].content);
    assert.match(system, new RegExp(`Also yours to read and write, like the workspace: ${extra}`));
    assert.match(toolResults(reqs[3]).at(-1)!, /path is denied/);
    // The jail hides what paths.deny matches in the folder, as in the workspace.
    if (JAIL) assert.doesNotMatch(toolResults(reqs[4]).at(-1)!, /PEM-CONTENT/);
    assert.deepEqual(run.fake.rejected, []);
  });
});

Deno.test("e2e --add-dir: without the flag the same writes are refused", async () => {
  await withExtra(async (extra) => {
    await using run = await workspace({
      turns: [
        scriptToolCall("write", { file_path: `${extra}/out.txt`, content: "x" }),
        scriptToolCall("bash", { command: `echo x > ${extra}/bash.txt` }),
        scriptText("done"),
      ],
    });
    const r = await run.run(["run", "go"], { perms: perms(run, extra) });
    assert.equal(r.code, 0, r.stderr);
    await assert.rejects(() => Deno.stat(`${extra}/out.txt`), Deno.errors.NotFound);
    const results = toolResults(run.fake.turnRequests()[2]);
    assert.match(results[0], /write outside allowed paths/);
    // Only the OS jail keeps bash out of the folder; without one (MOPAC_SANDBOX=off) it may write.
    if (JAIL) {
      await assert.rejects(() => Deno.stat(`${extra}/bash.txt`), Deno.errors.NotFound);
      // The jail's /tmp is its own: a folder outside the workspace is not even there.
      assert.match(results[1], /Read-only file system|Permission denied|No such file/);
    }
  });
});

Deno.test("e2e --add-dir: a missing folder, a file, or one holding the data dir is exit 2", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  const cases: Array<[string[], RegExp]> = [
    [["--add-dir", `${ws.dir}/missing`], /--add-dir .*missing: no such directory/],
    [["--add-dir", `${ws.dir}/mopac.json`], /--add-dir .*mopac\.json: not a directory/],
    [
      ["--add-dir", ws.dir, "--data-dir", `${ws.dir}/data`],
      /--add-dir .*: it holds .*data, which the model may not change/,
    ],
    [["--add-dir", ""], /--add-dir needs a value/],
  ];
  for (const [flags, message] of cases) {
    const r = await ws.run(["run", ...flags, "hi"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(ws.fake.requests.length, 0);
});
