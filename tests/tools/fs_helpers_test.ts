import assert from "node:assert/strict";
import * as path from "node:path";
import { unifiedDiff } from "../../src/tools/fs/diff.ts";
import { GitIgnoreTree } from "../../src/tools/fs/gitignore.ts";
import { readLineWindow } from "../../src/tools/fs/lines.ts";
import { applyStyle, looksBinary, splitStyle } from "../../src/tools/fs/text.ts";
import { tempWorkspace, writeTree } from "./_helpers.ts";

Deno.test("readLineWindow: lines across 64 KiB chunk borders, CRLF, last line without newline", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const file = path.join(dir, "f.txt");
    // Line 1 ends one byte into the second chunk, so "\r\n" is split across chunks.
    const first = "a".repeat(64 * 1024 - 1);
    await Deno.writeTextFile(file, `${first}\r\nsecond\r\n\r\nlast`);
    const all = await readLineWindow(file, 0, 10, 100_000);
    assert.deepEqual(all.lines, [first, "second", "", "last"]);
    assert.equal(all.more, false);
    assert.equal(all.total, 4);
    const tail = await readLineWindow(file, 1, 2, 100_000);
    assert.deepEqual(tail.lines, ["second", ""]);
    assert.equal(tail.more, true);
    const cut = await readLineWindow(file, 0, 1, 10);
    assert.deepEqual(cut.lines, ["aaaaaaaaaa"]);
    assert.equal(cut.cut, 1);
  } finally {
    await cleanup();
  }
});

Deno.test("readLineWindow: a multi-byte character at the cut is not mangled", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const file = path.join(dir, "u.txt");
    await Deno.writeTextFile(file, "€".repeat(50) + "\n"); // 3 bytes each
    const { lines, cut } = await readLineWindow(file, 0, 5, 7); // 28 bytes kept: 9⅓ characters
    assert.equal(lines[0], "€".repeat(7));
    assert.equal(cut, 1);
    const empty = path.join(dir, "e.txt");
    await Deno.writeTextFile(empty, "");
    assert.deepEqual(await readLineWindow(empty, 0, 5, 10), {
      lines: [],
      cut: 0,
      more: false,
      total: 0,
    });
  } finally {
    await cleanup();
  }
});

Deno.test("text style: CRLF and BOM round-trip; binary sniffing", () => {
  const raw = "\uFEFFa\r\nb\r\n";
  const { text, style } = splitStyle(raw);
  assert.equal(text, "a\nb\n");
  assert.deepEqual(style, { bom: true, crlf: true });
  assert.equal(applyStyle(text + "c\n", style), "\uFEFFa\r\nb\r\nc\r\n");
  assert.deepEqual(splitStyle("x\ny\r\nz\n").style, { bom: false, crlf: false }); // mostly LF
  assert.equal(looksBinary(new TextEncoder().encode("plain text, ünïcödé ✓\n")), false);
  assert.equal(looksBinary(Uint8Array.from([104, 105, 0, 33])), true);
  assert.equal(looksBinary(Uint8Array.from({ length: 200 }, (_, i) => 0x80 + (i % 64))), true);
  // A multi-byte character cut at the end of the sample is not counted against it.
  assert.equal(looksBinary(new TextEncoder().encode("ok €").subarray(0, 5)), false);
});

Deno.test("gitignore: deeper files win, negations re-include, parents apply up to the repo root", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, {
      ".gitignore": "should-not-apply.txt\n",
      "repo/.git/HEAD": "x",
      "repo/.gitignore": "*.log\n/top-only.txt\nbuild/\n",
      "repo/sub/.gitignore": "!keep.log\n",
    });
    const sub = path.join(dir, "repo/sub");
    const tree = await GitIgnoreTree.create(sub);
    assert.equal(tree.verdict(path.join(sub, "x.log"), false), "ignored");
    assert.equal(tree.verdict(path.join(sub, "keep.log"), false), "unignored");
    assert.equal(tree.verdict(path.join(sub, "build"), true), "ignored");
    assert.equal(tree.verdict(path.join(sub, "build"), false), "none"); // "build/" matches folders only
    assert.equal(tree.verdict(path.join(sub, "top-only.txt"), false), "none"); // anchored to repo/
    assert.equal(tree.verdict(path.join(sub, "should-not-apply.txt"), false), "none"); // above .git
  } finally {
    await cleanup();
  }
});

Deno.test("unifiedDiff: git-style headers, counts, missing final newline marked", async () => {
  const d = await unifiedDiff("src/a.txt", "one\ntwo", "one\nTWO\nthree\n");
  assert.equal(d.additions, 2);
  assert.equal(d.removals, 1);
  assert.equal(
    d.diff,
    "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,3 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n+three",
  );
  assert.equal((await unifiedDiff("x", "same", "same")).diff, "");
  assert.match(
    (await unifiedDiff("n.txt", null, "hi\n")).diff,
    /^--- \/dev\/null\n\+\+\+ b\/n\.txt\n@@ -0,0 \+1,1 @@\n\+hi$/,
  );
});
