import assert from "node:assert/strict";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { createViewTool } from "../../src/tools/view.ts";
import { call, makeContext, tempWorkspace, writeTree } from "./_helpers.ts";

const PNG_1PX = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("view: numbered lines in crush's format, records the view", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "a.txt": "alpha\nbeta\ngamma\n" });
    const ctx = makeContext(dir);
    const { out, access } = await call(createViewTool(), { file_path: "a.txt" }, ctx);
    assert.equal(out.is_error, undefined);
    assert.equal(out.content, "<file>\n     1|alpha\n     2|beta\n     3|gamma\n</file>");
    const file = path.join(dir, "a.txt");
    assert.deepEqual(access, { reads: [file] });
    assert.equal(ctx.state.viewed.get(file), (await Deno.stat(file)).mtime!.getTime());
    assert.equal(ctx.stateChanges, 1);
  } finally {
    await cleanup();
  }
});

Deno.test("view: offset and limit page through a file", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    await writeTree(dir, { "ten.txt": lines.join("\n") + "\n" });
    const ctx = makeContext(dir);
    const { out } = await call(
      createViewTool(),
      { file_path: "ten.txt", offset: 3, limit: 2 },
      ctx,
    );
    assert.match(out.content, /^<file>\n {5}4\|line 4\n {5}5\|line 5\n<\/file>\n/);
    assert.match(
      out.content,
      /\(Lines 4-5 of 10 shown\. 5 more lines remain: call view with offset 5 to continue\.\)$/,
    );
    const last = await call(createViewTool(), { file_path: "ten.txt", offset: 8 }, ctx);
    assert.match(
      last.out.content,
      / {5}9\|line 9\n {4}10\|line 10\n<\/file>\n\(Lines 9-10 of 10 shown: the end of the file\.\)$/,
    );
    assert.doesNotMatch(last.out.content, /remain/);
    const whole = await call(createViewTool(), { file_path: "ten.txt" }, ctx);
    assert.match(whole.out.content, / {4}10\|line 10\n<\/file>$/);
  } finally {
    await cleanup();
  }
});

Deno.test("view: 1000 lines at most, longer lines cut with a note", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const many = Array.from({ length: 2500 }, (_, i) => `n${i + 1}`).join("\n");
    await writeTree(dir, { "many.txt": many, "long.txt": "x".repeat(3000) + "\nshort\n" });
    const ctx = makeContext(dir);
    const { out } = await call(createViewTool(), { file_path: "many.txt", limit: 2000 }, ctx);
    assert.match(out.content, / {2}1000\|n1000\n/);
    assert.doesNotMatch(out.content, /\|n1001/);
    assert.match(out.content, /of 2500 shown\. 1500 more lines remain: call view with offset 1000/);
    const long = await call(createViewTool(), { file_path: "long.txt" }, ctx);
    const first = long.out.content.split("\n")[1];
    assert.equal(first, "     1|" + "x".repeat(2000));
    assert.match(long.out.content, /1 line\(s\) longer than 2000 characters were cut/);
    assert.match(long.out.content, / {5}2\|short/);
  } finally {
    await cleanup();
  }
});

Deno.test("view: CRLF and BOM are not shown; empty file; offset past the end", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "crlf.txt": "\uFEFFone\r\ntwo\r\n", "empty.txt": "" });
    const ctx = makeContext(dir);
    const { out } = await call(createViewTool(), { file_path: "crlf.txt" }, ctx);
    assert.equal(out.content, "<file>\n     1|one\n     2|two\n</file>");
    const empty = await call(createViewTool(), { file_path: "empty.txt" }, ctx);
    assert.equal(empty.out.content, "<file>\n(empty file)\n</file>");
    const past = await call(createViewTool(), { file_path: "crlf.txt", offset: 5 }, ctx);
    assert.equal(past.out.is_error, true);
    assert.match(past.out.content, /offset 5 is past the end .* which has 2 lines/);
  } finally {
    await cleanup();
  }
});

Deno.test("view: binary files are refused", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "blob.bin": Uint8Array.from([1, 2, 0, 3, 4, 0, 5]) });
    const ctx = makeContext(dir);
    const { out } = await call(createViewTool(), { file_path: "blob.bin" }, ctx);
    assert.equal(out.is_error, true);
    assert.match(out.content, /is a binary file \(7 bytes\)/);
    assert.equal(ctx.state.viewed.size, 0);
  } finally {
    await cleanup();
  }
});

Deno.test("view: images become image parts only when the model takes images", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "dot.png": PNG_1PX, "fake.png": "just text\n" });
    const withImages = makeContext(dir, { attachments: true });
    const { out } = await call(createViewTool(), { file_path: "dot.png" }, withImages);
    assert.equal(out.is_error, undefined);
    assert.equal(out.images?.length, 1);
    assert.equal(out.images![0].mime_type, "image/png");
    assert.deepEqual(Buffer.from(out.images![0].data, "base64"), Buffer.from(PNG_1PX));
    assert.match(out.content, /image\/png/);

    const noImages = makeContext(dir, { attachments: false });
    const refused = await call(createViewTool(), { file_path: "dot.png" }, noImages);
    assert.equal(refused.out.is_error, true);
    assert.equal(refused.out.images, undefined);
    assert.match(refused.out.content, /does not accept images/);

    // A .png that is really text is shown as text.
    const fake = await call(createViewTool(), { file_path: "fake.png" }, noImages);
    assert.equal(fake.out.content, "<file>\n     1|just text\n</file>");
  } finally {
    await cleanup();
  }
});

Deno.test("view: a 64 GiB (sparse) file is read in bounded fashion", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const file = path.join(dir, "huge.log");
    await Deno.writeTextFile(
      file,
      Array.from({ length: 1000 }, (_, i) => `entry ${i + 1}`).join("\n") + "\n",
    );
    // 1000 text lines (more than the 8 KiB binary sniff) then 64 GiB of holes. Loading the
    // whole file would need 64 GiB of memory; a bounded reader stops after the window.
    await Deno.truncate(file, 64 * 1024 ** 3);
    const ctx = makeContext(dir);
    const { out } = await call(createViewTool(), { file_path: file, limit: 5 }, ctx);
    assert.equal(out.is_error, undefined);
    assert.match(out.content, / {5}5\|entry 5\n/);
    // The rest is too big to count: the note says more follows, without a number.
    assert.match(out.content, /\(Lines 1-5 shown\. More lines remain: call view with offset 5 to/);
    const deeper = await call(createViewTool(), { file_path: file, offset: 998, limit: 2 }, ctx);
    assert.match(deeper.out.content, / {3}999\|entry 999\n {2}1000\|entry 1000\n/);
  } finally {
    await cleanup();
  }
});

Deno.test("view: not found suggests similar names; folders are refused", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "config.json": "{}", "src/main.ts": "" });
    const ctx = makeContext(dir);
    const { out } = await call(createViewTool(), { file_path: "confg.json" }, ctx);
    assert.equal(out.is_error, true);
    assert.equal(
      out.content,
      `File not found: ${path.join(dir, "confg.json")}\n\nDid you mean one of these?\n${
        path.join(dir, "config.json")
      }`,
    );
    const none = await call(createViewTool(), { file_path: "zzz/nothing.txt" }, ctx);
    assert.equal(none.out.content, `File not found: ${path.join(dir, "zzz/nothing.txt")}`);
    const folder = await call(createViewTool(), { file_path: "src" }, ctx);
    assert.equal(folder.out.is_error, true);
    assert.match(folder.out.content, /is a directory/);
  } finally {
    await cleanup();
  }
});

Deno.test("view: a page stops on a line end inside the output limit and says where to go on", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const line = (i: number) => `${i}:` + "y".repeat(98);
    await writeTree(dir, {
      "wide.txt": Array.from({ length: 1500 }, (_, i) => line(i + 1)).join("\n") + "\n",
    });
    const ctx = makeContext(dir);
    const { out } = await call(
      createViewTool({ maxChars: 10_000 }),
      { file_path: "wide.txt" },
      ctx,
    );
    assert.ok(out.content.length <= 10_000, String(out.content.length));
    const m =
      /\(Lines 1-(\d+) of 1500 shown\. (\d+) more lines remain: call view with offset (\d+) to continue\.\)$/
        .exec(out.content);
    assert.ok(m, out.content.slice(-300));
    const shown = Number(m[1]);
    assert.equal(Number(m[2]), 1500 - shown);
    assert.equal(Number(m[3]), shown);
    // Every line shown is whole; the next page starts with the next line.
    const numbered = out.content.split("\n").filter((l) => /^ *\d+\|/.test(l));
    assert.equal(numbered.length, shown);
    assert.equal(numbered.at(-1), `${String(shown).padStart(6)}|${line(shown)}`);
    const next = await call(
      createViewTool({ maxChars: 10_000 }),
      { file_path: "wide.txt", offset: shown },
      ctx,
    );
    assert.match(next.out.content, new RegExp(`^<file>\\n *${shown + 1}\\|${shown + 1}:y`));
  } finally {
    await cleanup();
  }
});
