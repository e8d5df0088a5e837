import assert from "node:assert/strict";
import * as path from "node:path";
import { createEditTool } from "../../src/tools/edit.ts";
import { createGlobTool } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { createLsTool } from "../../src/tools/ls.ts";
import { createViewTool } from "../../src/tools/view.ts";
import { createWriteTool } from "../../src/tools/write.ts";
import { resolvePath } from "../../src/tools/fs/paths.ts";
import { isInside } from "../../src/permission/match.ts";
import { call, makeContext, tempWorkspace, writeTree } from "./_helpers.ts";

/** A workspace and, beside it, an "outside" folder with a secret. */
async function twoFolders() {
  const ws = await tempWorkspace();
  const outside = await tempWorkspace();
  await writeTree(outside.dir, { "secret.txt": "password=hunter2\n", "dir/inner.txt": "needle\n" });
  return {
    ws: ws.dir,
    out: outside.dir,
    cleanup: async () => {
      await ws.cleanup();
      await outside.cleanup();
    },
  };
}

Deno.test("paths: a symlink inside the workspace to a file outside is reported with its real target", async () => {
  const { ws, out, cleanup } = await twoFolders();
  try {
    await Deno.symlink(path.join(out, "secret.txt"), path.join(ws, "innocent.txt"));
    const ctx = makeContext(ws);
    const viewed = await call(createViewTool(), { file_path: "innocent.txt" }, ctx);
    assert.deepEqual(viewed.access, { reads: [path.join(out, "secret.txt")] });
    assert.equal(isInside(viewed.access.reads![0], ws), false);
    const edited = createEditTool();
    const input = edited.parse({ file_path: "innocent.txt", old_string: "a", new_string: "b" });
    assert.deepEqual(await edited.access!(input, ctx), {
      reads: [path.join(out, "secret.txt")],
      writes: [path.join(out, "secret.txt")],
    });
  } finally {
    await cleanup();
  }
});

Deno.test("paths: new files under a symlinked folder and dangling links resolve to where they land", async () => {
  const { ws, out, cleanup } = await twoFolders();
  try {
    await Deno.symlink(out, path.join(ws, "linkdir"));
    await Deno.symlink(path.join(out, "not-yet.txt"), path.join(ws, "dangling.txt"));
    const ctx = makeContext(ws);
    const write = createWriteTool();
    const a = await write.access!(
      write.parse({ file_path: "linkdir/sub/new.txt", content: "x" }),
      ctx,
    );
    assert.deepEqual(a.writes, [path.join(out, "sub/new.txt")]);
    const b = await write.access!(write.parse({ file_path: "dangling.txt", content: "x" }), ctx);
    assert.deepEqual(b.writes, [path.join(out, "not-yet.txt")]);
    const c = await write.access!(
      write.parse({ file_path: "../x/../plain.txt", content: "x" }),
      ctx,
    );
    assert.deepEqual(c.writes, [path.join(path.dirname(ws), "plain.txt")]);
    for (const tool of [createLsTool(), createGlobTool(), createGrepTool()]) {
      const args = tool.name === "ls" ? { path: "linkdir" } : { pattern: "x", path: "linkdir" };
      const access = await tool.access!(tool.parse(args), ctx);
      assert.deepEqual(access.reads, [out], tool.name);
    }
    assert.deepEqual(await resolvePath("linkdir/dir/inner.txt", ws), {
      absolute: path.join(ws, "linkdir/dir/inner.txt"),
      real: path.join(out, "dir/inner.txt"),
    });
  } finally {
    await cleanup();
  }
});

Deno.test("paths: run refuses when a symlink is swapped after access() was checked", async () => {
  const { ws, out, cleanup } = await twoFolders();
  try {
    await writeTree(ws, { "target.txt": "inside\n" });
    const link = path.join(ws, "link.txt");
    await Deno.symlink(path.join(ws, "target.txt"), link);
    const ctx = makeContext(ws);
    const write = createWriteTool();
    const input = write.parse({ file_path: "link.txt", content: "evil\n" });
    const access = await write.access!(input, ctx);
    assert.deepEqual(access.writes, [path.join(ws, "target.txt")]);
    // The gate approved target.txt; now the link is repointed outside before the run.
    await Deno.remove(link);
    await Deno.symlink(path.join(out, "secret.txt"), link);
    const result = await write.run(input, ctx);
    assert.equal(result.is_error, true);
    assert.match(result.content, /now resolves to .*secret\.txt, not to .*target\.txt/);
    assert.equal(await Deno.readTextFile(path.join(out, "secret.txt")), "password=hunter2\n");
  } finally {
    await cleanup();
  }
});

Deno.test("paths: walks never follow symlinks out of the searched folder", async () => {
  const { ws, out, cleanup } = await twoFolders();
  try {
    await writeTree(ws, { "own.txt": "needle\n" });
    await Deno.symlink(path.join(out, "dir"), path.join(ws, "escape"));
    await Deno.symlink(path.join(out, "secret.txt"), path.join(ws, "secret-link.txt"));
    const ctx = makeContext(ws);
    const grep = await call(
      createGrepTool({ ripgrep: false }),
      { pattern: "needle|password" },
      ctx,
    );
    assert.equal(
      grep.out.content,
      `Found 1 matches\n${path.join(ws, "own.txt")}:\n  Line 1: needle`,
    );
    const glob = await call(createGlobTool(), { pattern: "**/*.txt" }, ctx);
    assert.equal(glob.out.content, path.join(ws, "own.txt"));
    const ls = await call(createLsTool(), {}, ctx);
    assert.equal(
      ls.out.content,
      `- ${ws}/\n  - escape (symlink)\n  - own.txt\n  - secret-link.txt (symlink)`,
    );
  } finally {
    await cleanup();
  }
});
