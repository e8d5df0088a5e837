import assert from "node:assert/strict";
import * as path from "node:path";
import { createEditTool } from "../../src/tools/edit.ts";
import { createViewTool } from "../../src/tools/view.ts";
import {
  call,
  makeContext,
  tempWorkspace,
  type TestContext,
  touch,
  writeTree,
} from "./_helpers.ts";

const edit = createEditTool();
const view = createViewTool();

async function viewed(ctx: TestContext, file: string) {
  const { out } = await call(view, { file_path: file }, ctx);
  assert.equal(out.is_error, undefined, out.content);
}

const LATIN1 = Uint8Array.from(
  [..."un caf", "\xe9", ..." au lait, s'il vous plait\n"].map((c) => c.charCodeAt(0)),
);

async function bytesOf(file: string): Promise<number[]> {
  return [...await Deno.readFile(file)];
}

Deno.test("edit: unique replacement, diff in the result, change recorded", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "src/app.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
    const ctx = makeContext(dir);
    await viewed(ctx, "src/app.ts");
    const { out, access } = await call(
      edit,
      { file_path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = 20;" },
      ctx,
    );
    const file = path.join(dir, "src/app.ts");
    assert.deepEqual(access, { reads: [file], writes: [file] });
    assert.equal(out.is_error, undefined, out.content);
    assert.equal(await Deno.readTextFile(file), "const a = 1;\nconst b = 20;\nconst c = 3;\n");
    assert.match(out.content, /replaced 1 occurrence \(\+1 -1\)/);
    assert.match(
      out.content,
      /```diff\n--- a\/src\/app\.ts\n\+\+\+ b\/src\/app\.ts\n@@ -1,3 \+1,3 @@/,
    );
    assert.match(out.content, /\n-const b = 2;\n\+const b = 20;\n/);
    assert.deepEqual(ctx.changes, [{
      path: file,
      before: "const a = 1;\nconst b = 2;\nconst c = 3;\n",
      after: "const a = 1;\nconst b = 20;\nconst c = 3;\n",
    }]);
    // The tool's own write counts as a fresh view: a second edit needs no new view.
    const again = await call(
      edit,
      { file_path: file, old_string: "const c = 3;", new_string: "" },
      ctx,
    );
    assert.equal(again.out.is_error, undefined, again.out.content);
    assert.match(again.out.content, /deleted 1 occurrence/);
    assert.equal(await Deno.readTextFile(file), "const a = 1;\nconst b = 20;\n\n");
  } finally {
    await cleanup();
  }
});

Deno.test("edit: several matches is an error with the count; replace_all replaces them all", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "x.txt": "foo\nbar\nfoo\nbaz\nfoo\n" });
    const ctx = makeContext(dir);
    await viewed(ctx, "x.txt");
    const multi = await call(
      edit,
      { file_path: "x.txt", old_string: "foo", new_string: "qux" },
      ctx,
    );
    assert.equal(multi.out.is_error, true);
    assert.match(multi.out.content, /appears 3 times in the file \(first at line 1\)/);
    assert.match(multi.out.content, /replace_all/);
    assert.equal(await Deno.readTextFile(path.join(dir, "x.txt")), "foo\nbar\nfoo\nbaz\nfoo\n");
    assert.equal(ctx.changes.length, 0);

    const all = await call(
      edit,
      { file_path: "x.txt", old_string: "foo", new_string: "qux", replace_all: true },
      ctx,
    );
    assert.match(all.out.content, /replaced 3 occurrences/);
    assert.equal(await Deno.readTextFile(path.join(dir, "x.txt")), "qux\nbar\nqux\nbaz\nqux\n");
  } finally {
    await cleanup();
  }
});

Deno.test("edit: no match says so, with a hint when only indentation differs", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "f.py": "def f():\n    return 1\n" });
    const ctx = makeContext(dir);
    await viewed(ctx, "f.py");
    const none = await call(
      edit,
      { file_path: "f.py", old_string: "return 2", new_string: "x" },
      ctx,
    );
    assert.equal(none.out.is_error, true);
    assert.match(none.out.content, /old_string was not found in the file/);
    assert.doesNotMatch(none.out.content, /ignoring leading/);
    const indent = await call(
      edit,
      { file_path: "f.py", old_string: "def f():\n  return 1", new_string: "x" },
      ctx,
    );
    assert.match(
      indent.out.content,
      /A match ignoring leading\/trailing whitespace starts at line 1/,
    );
    const same = await call(edit, {
      file_path: "f.py",
      old_string: "return 1",
      new_string: "return 1",
    }, ctx);
    assert.match(same.out.content, /identical/);
  } finally {
    await cleanup();
  }
});

Deno.test("edit: empty old_string creates a file (and parents); refuses a non-empty existing one", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "taken.txt": "data\n", "empty.txt": "" });
    const ctx = makeContext(dir);
    const made = await call(edit, {
      file_path: "new/deep/n.txt",
      old_string: "",
      new_string: "hi\n",
    }, ctx);
    assert.equal(made.out.is_error, undefined, made.out.content);
    assert.match(made.out.content, /^Created .*n\.txt \(1 line\)/);
    assert.match(made.out.content, /--- \/dev\/null\n\+\+\+ b\/new\/deep\/n\.txt/);
    const file = path.join(dir, "new/deep/n.txt");
    assert.equal(await Deno.readTextFile(file), "hi\n");
    assert.deepEqual(ctx.changes[0], { path: file, before: null, after: "hi\n" });
    assert.ok(ctx.state.viewed.has(file));

    const taken = await call(
      edit,
      { file_path: "taken.txt", old_string: "", new_string: "x" },
      ctx,
    );
    assert.equal(taken.out.is_error, true);
    assert.match(taken.out.content, /already exists and is not empty/);
    assert.equal(await Deno.readTextFile(path.join(dir, "taken.txt")), "data\n");

    const empty = await call(
      edit,
      { file_path: "empty.txt", old_string: "", new_string: "filled" },
      ctx,
    );
    assert.equal(empty.out.is_error, undefined, empty.out.content);
    assert.equal(await Deno.readTextFile(path.join(dir, "empty.txt")), "filled");
    assert.equal(ctx.changes[1].before, "");

    const missing = await call(
      edit,
      { file_path: "nope.txt", old_string: "a", new_string: "b" },
      ctx,
    );
    assert.match(missing.out.content, /File not found: .*nope\.txt\. To create it/);
  } finally {
    await cleanup();
  }
});

Deno.test("edit: CRLF line endings are kept", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "w.txt": "one\r\ntwo\r\nthree\r\n" });
    const ctx = makeContext(dir);
    await viewed(ctx, "w.txt");
    const { out } = await call(edit, {
      file_path: "w.txt",
      old_string: "one\ntwo",
      new_string: "1\n2\n2b",
    }, ctx);
    assert.equal(out.is_error, undefined, out.content);
    assert.equal(await Deno.readTextFile(path.join(dir, "w.txt")), "1\r\n2\r\n2b\r\nthree\r\n");
    assert.doesNotMatch(out.content, /\r/); // the diff is on LF text
    assert.equal(ctx.changes[0].before, "one\r\ntwo\r\nthree\r\n");
  } finally {
    await cleanup();
  }
});

Deno.test("edit: a UTF-8 BOM and a missing final newline are kept", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "bom.txt": "\uFEFFhello\nworld\n", "nonl.txt": "a\nb" });
    const ctx = makeContext(dir);
    await viewed(ctx, "bom.txt");
    await viewed(ctx, "nonl.txt");
    await call(edit, { file_path: "bom.txt", old_string: "hello", new_string: "bonjour" }, ctx);
    const bom = await bytesOf(path.join(dir, "bom.txt"));
    assert.deepEqual(bom.slice(0, 3), [0xef, 0xbb, 0xbf]);
    assert.equal(new TextDecoder().decode(Uint8Array.from(bom)), "bonjour\nworld\n");
    await call(edit, { file_path: "nonl.txt", old_string: "a", new_string: "x" }, ctx);
    assert.equal(await Deno.readTextFile(path.join(dir, "nonl.txt")), "x\nb");
  } finally {
    await cleanup();
  }
});

Deno.test("edit: refused when the file was never viewed, or changed since the view", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "s.txt": "v1\n" });
    const file = path.join(dir, "s.txt");
    const ctx = makeContext(dir);
    const never = await call(edit, { file_path: "s.txt", old_string: "v1", new_string: "v2" }, ctx);
    assert.equal(never.out.is_error, true);
    assert.match(never.out.content, /You must view .*s\.txt before changing it/);

    await viewed(ctx, "s.txt");
    // Someone else changes the file after our view (mtime set explicitly: no clock races).
    await Deno.writeTextFile(file, "v1 changed elsewhere\n");
    await touch(file, 1_000_000);
    const stale = await call(edit, { file_path: "s.txt", old_string: "v1", new_string: "v2" }, ctx);
    assert.equal(stale.out.is_error, true);
    assert.match(stale.out.content, /was modified since it was last read .* View it again/);
    assert.equal(await Deno.readTextFile(file), "v1 changed elsewhere\n");
    assert.equal(ctx.changes.length, 0);

    await viewed(ctx, "s.txt");
    const ok = await call(edit, { file_path: "s.txt", old_string: "v1", new_string: "v2" }, ctx);
    assert.equal(ok.out.is_error, undefined, ok.out.content);
  } finally {
    await cleanup();
  }
});

Deno.test("edit: binary and non-UTF-8 files are refused", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, {
      "latin1.txt": LATIN1, // mostly ASCII, one Latin-1 "é": text, but not UTF-8
      "bin.dat": Uint8Array.from([0x61, 0, 0x62]),
    });
    const ctx = makeContext(dir);
    for (const f of ["latin1.txt", "bin.dat"]) {
      ctx.state.viewed.set(
        path.join(dir, f),
        (await Deno.stat(path.join(dir, f))).mtime!.getTime(),
      );
    }
    const latin = await call(
      edit,
      { file_path: "latin1.txt", old_string: "caf", new_string: "x" },
      ctx,
    );
    assert.match(latin.out.content, /not valid UTF-8/);
    const bin = await call(edit, { file_path: "bin.dat", old_string: "a", new_string: "x" }, ctx);
    assert.match(bin.out.content, /binary file/);
    assert.deepEqual(await bytesOf(path.join(dir, "latin1.txt")), [...LATIN1]);
  } finally {
    await cleanup();
  }
});

Deno.test("edit: an old_string copied with view's line-number prefix is named as such", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "f.py": "def f():\n    return 1\n" });
    const ctx = makeContext(dir);
    await viewed(ctx, "f.py");
    const prefixed = await call(edit, {
      file_path: "f.py",
      old_string: "     2|    return 1",
      new_string: "    return 2",
    }, ctx);
    assert.equal(prefixed.out.is_error, true);
    assert.match(
      prefixed.out.content,
      /^old_string was not found in the file\. It starts with " {5}2\|", which looks like the line-number prefix view shows before each line: that prefix is not part of the file\./,
    );
    assert.equal(await Deno.readTextFile(path.join(dir, "f.py")), "def f():\n    return 1\n");
    assert.match(edit.description, /without view's line-number prefix/);
  } finally {
    await cleanup();
  }
});
