import assert from "node:assert/strict";
import * as path from "node:path";
import { createMultiEditTool } from "../../src/tools/multiedit.ts";
import { createViewTool } from "../../src/tools/view.ts";
import { createWriteTool } from "../../src/tools/write.ts";
import { ToolInputError } from "../../src/util/errors.ts";
import { call, makeContext, tempWorkspace, touch, writeTree } from "./_helpers.ts";

const multiedit = createMultiEditTool();
const write = createWriteTool();
const view = createViewTool();

Deno.test("multiedit: edits apply in order, one diff, CRLF kept", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "m.txt": "alpha\r\nbeta\r\ngamma\r\n" });
    const ctx = makeContext(dir);
    await call(view, { file_path: "m.txt" }, ctx);
    const { out, access } = await call(multiedit, {
      file_path: "m.txt",
      edits: [
        { old_string: "alpha", new_string: "ALPHA" },
        { old_string: "ALPHA\nbeta", new_string: "ALPHA\nBETA" }, // sees the first edit's result
        { old_string: "a", new_string: "4", replace_all: true },
      ],
    }, ctx);
    const file = path.join(dir, "m.txt");
    assert.deepEqual(access, { reads: [file], writes: [file] });
    assert.equal(out.is_error, undefined, out.content);
    assert.equal(await Deno.readTextFile(file), "ALPHA\r\nBETA\r\ng4mm4\r\n");
    assert.match(out.content, /applied 3 edits \(4 replacements, \+3 -3\)/);
    assert.equal(out.content.match(/```diff/g)?.length, 1);
    assert.equal(ctx.changes.length, 1);
    assert.equal(ctx.changes[0].before, "alpha\r\nbeta\r\ngamma\r\n");
  } finally {
    await cleanup();
  }
});

Deno.test("multiedit: all or none — a failing edit leaves the file untouched", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "m.txt": "one\ntwo\ntwo\n" });
    const ctx = makeContext(dir);
    await call(view, { file_path: "m.txt" }, ctx);
    const notFound = await call(multiedit, {
      file_path: "m.txt",
      edits: [{ old_string: "one", new_string: "1" }, { old_string: "three", new_string: "3" }],
    }, ctx);
    assert.equal(notFound.out.is_error, true);
    assert.match(
      notFound.out.content,
      /^Edit 2 of 2 failed; no changes were made\. edits\[1\]\.old_string was not found/,
    );
    const ambiguous = await call(multiedit, {
      file_path: "m.txt",
      edits: [{ old_string: "one", new_string: "1" }, { old_string: "two", new_string: "2" }],
    }, ctx);
    assert.match(ambiguous.out.content, /Edit 2 of 2 failed.*appears 2 times/);
    const noop = await call(multiedit, {
      file_path: "m.txt",
      edits: [{ old_string: "one", new_string: "1" }, { old_string: "1", new_string: "one" }],
    }, ctx);
    assert.match(noop.out.content, /leave the file exactly as it was; nothing was written/);
    assert.equal(await Deno.readTextFile(path.join(dir, "m.txt")), "one\ntwo\ntwo\n");
    assert.equal(ctx.changes.length, 0);
  } finally {
    await cleanup();
  }
});

Deno.test("multiedit: first edit with empty old_string creates the file; view rules apply", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "old.txt": "x\n" });
    const ctx = makeContext(dir);
    const made = await call(multiedit, {
      file_path: "pkg/new.ts",
      edits: [
        { old_string: "", new_string: "export const a = 1;\nexport const b = 2;\n" },
        { old_string: "b = 2", new_string: "b = 3" },
      ],
    }, ctx);
    assert.equal(made.out.is_error, undefined, made.out.content);
    assert.match(made.out.content, /^Created \(2 edits\)/);
    assert.equal(
      await Deno.readTextFile(path.join(dir, "pkg/new.ts")),
      "export const a = 1;\nexport const b = 3;\n",
    );
    const never = await call(multiedit, {
      file_path: "old.txt",
      edits: [{ old_string: "x", new_string: "y" }],
    }, ctx);
    assert.match(never.out.content, /You must view/);
    assert.throws(
      () =>
        multiedit.parse({
          file_path: "a",
          edits: [{ old_string: "a", new_string: "b" }, { old_string: "", new_string: "c" }],
        }),
      (err: unknown) =>
        err instanceof ToolInputError &&
        /edits\[1\]\.old_string: must not be empty/.test(err.message),
    );
    assert.throws(() => multiedit.parse({ file_path: "a", edits: [] }), ToolInputError);
  } finally {
    await cleanup();
  }
});

Deno.test("write: creates parents; identical content is reported; change recorded", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const ctx = makeContext(dir);
    const { out, access } = await call(write, { file_path: "a/b/c.md", content: "# Title\n" }, ctx);
    const file = path.join(dir, "a/b/c.md");
    assert.deepEqual(access, { reads: [file], writes: [file] });
    assert.equal(out.is_error, undefined, out.content);
    assert.match(out.content, /^Created .*c\.md \(1 line\)/);
    assert.equal(await Deno.readTextFile(file), "# Title\n");
    assert.deepEqual(ctx.changes, [{ path: file, before: null, after: "# Title\n" }]);
    // Written by the tool itself: counts as seen, so it may be replaced right away.
    const same = await call(write, { file_path: file, content: "# Title\n" }, ctx);
    assert.match(same.out.content, /already has exactly this content; nothing was written/);
    const next = await call(write, { file_path: file, content: "# Title\n\nBody\n" }, ctx);
    assert.match(next.out.content, /^Wrote .*\(\+2 -0\)/);
    assert.match(next.out.content, /\+Body/);
    assert.equal(ctx.changes.length, 2);
  } finally {
    await cleanup();
  }
});

Deno.test("write: overwriting needs a prior view and an unchanged file", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "keep.txt": "precious\n" });
    const file = path.join(dir, "keep.txt");
    const ctx = makeContext(dir);
    const never = await call(write, { file_path: "keep.txt", content: "overwritten\n" }, ctx);
    assert.equal(never.out.is_error, true);
    assert.match(never.out.content, /You must view .*keep\.txt/);
    assert.equal(await Deno.readTextFile(file), "precious\n");

    await call(view, { file_path: "keep.txt" }, ctx);
    await touch(file, 2_000_000);
    const stale = await call(write, { file_path: "keep.txt", content: "overwritten\n" }, ctx);
    assert.match(stale.out.content, /modified since it was last read/);

    await call(view, { file_path: "keep.txt" }, ctx);
    const ok = await call(write, { file_path: "keep.txt", content: "overwritten\n" }, ctx);
    assert.equal(ok.out.is_error, undefined, ok.out.content);
    assert.equal(await Deno.readTextFile(file), "overwritten\n");
    assert.deepEqual(ctx.changes, [{ path: file, before: "precious\n", after: "overwritten\n" }]);

    await Deno.mkdir(path.join(dir, "folder"));
    const folder = await call(write, { file_path: "folder", content: "x" }, ctx);
    assert.match(folder.out.content, /is a directory/);
  } finally {
    await cleanup();
  }
});
