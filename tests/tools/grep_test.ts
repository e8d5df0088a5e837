import assert from "node:assert/strict";
import * as path from "node:path";
import { createGlobTool } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { createViewTool } from "../../src/tools/view.ts";
import { searchWithRg } from "../../src/tools/search/search_rg.ts";
import { call, makeContext, tempWorkspace, touch, writeTree } from "./_helpers.ts";

const builtin = createGrepTool({ ripgrep: false });

function rgVersion(): string | null {
  try {
    const out = new Deno.Command("rg", { args: ["--version"], stdout: "piped", stderr: "null" })
      .outputSync();
    return out.success ? new TextDecoder().decode(out.stdout).split("\n")[0] : null;
  } catch {
    return null;
  }
}
const RG = rgVersion();

Deno.test("grep: files grouped, newest first, 'Line N: text'", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, {
      "a.ts": "intro\n  needle one  \nx\ny\nneedle two\n",
      "b.ts": "needle\n",
      "c.ts": "nothing here\n",
    });
    await touch(path.join(dir, "a.ts"), 1_700_000_100);
    await touch(path.join(dir, "b.ts"), 1_700_000_000);
    const ctx = makeContext(dir);
    const { out, access } = await call(builtin, { pattern: "needle" }, ctx);
    assert.deepEqual(access, { reads: [dir] });
    const a = path.join(dir, "a.ts");
    const b = path.join(dir, "b.ts");
    assert.equal(
      out.content,
      `Found 3 matches\n${a}:\n  Line 2: needle one\n  Line 5: needle two\n\n${b}:\n  Line 1: needle`,
    );
    const capped = await call(createGrepTool({ ripgrep: false, max_results: 2 }), {
      pattern: "needle",
    }, ctx);
    assert.equal(
      capped.out.content,
      `Found 3 matches in 2 files; showing the first 2\n${a}:\n  Line 2: needle one\n  Line 5: needle two` +
        `\n\n(Results are truncated. Consider using a more specific path, include or pattern.)`,
    );
    const none = await call(builtin, { pattern: "absent" }, ctx);
    assert.equal(none.out.content, "No files found");
  } finally {
    await cleanup();
  }
});

Deno.test("grep: include filter, literal_text, invalid regex", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, {
      "src/x.ts": "call a.b(c) here\n",
      "src/y.tsx": "a-b-c\n",
      "doc.md": "a.b(c)\n",
    });
    const ctx = makeContext(dir);
    const files = async (args: Record<string, unknown>) => {
      const { out } = await call(builtin, args, ctx);
      return out.content.split("\n").filter((l) => l.endsWith(":")).map((l) =>
        path.relative(dir, l.slice(0, -1))
      ).sort();
    };
    assert.deepEqual(await files({ pattern: "a.b" }), ["doc.md", "src/x.ts", "src/y.tsx"]);
    assert.deepEqual(await files({ pattern: "a.b", include: "*.ts" }), ["src/x.ts"]);
    assert.deepEqual(await files({ pattern: "a.b", include: "*.{ts,tsx}" }), [
      "src/x.ts",
      "src/y.tsx",
    ]);
    assert.deepEqual(await files({ pattern: "a.b", include: "src/*.tsx" }), ["src/y.tsx"]);
    assert.deepEqual(await files({ pattern: "a.b(c)", literal_text: true }), [
      "doc.md",
      "src/x.ts",
    ]);
    const bad = await call(builtin, { pattern: "(unclosed" }, ctx);
    assert.equal(bad.out.is_error, true);
    assert.match(bad.out.content, /invalid regular expression.*set literal_text to true/);
  } finally {
    await cleanup();
  }
});

Deno.test("grep: .gitignore, hidden files, binary files and big files are skipped", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, {
      ".gitignore": "*.log\nout/\n",
      "app.log": "needle\n",
      "out/gen.js": "needle\n",
      ".hidden.ts": "needle\n",
      ".cache/x.ts": "needle\n",
      "bin.dat": Uint8Array.from([110, 101, 101, 100, 108, 101, 0, 1]),
      "big.txt": "needle\n" + "x".repeat(5000),
      "ok.ts": "needle\n",
    });
    const ctx = makeContext(dir);
    const { out } = await call(createGrepTool({ ripgrep: false, max_file_bytes: 1000 }), {
      pattern: "needle",
    }, ctx);
    assert.equal(out.content, `Found 1 matches\n${path.join(dir, "ok.ts")}:\n  Line 1: needle`);
  } finally {
    await cleanup();
  }
});

/** A tree with every case where the two backends could disagree. */
async function richTree(dir: string) {
  const many = Array.from({ length: 130 }, (_, i) => `needle ${i}`).join("\n") + "\n";
  await writeTree(dir, {
    ".gitignore": "*.log\nbuild/\n",
    "build/out.ts": "needle\n",
    "app.log": "needle\n",
    "src/.gitignore": "!keep.log\ngen/\n",
    "src/keep.log": "needle kept\n",
    "src/gen/g.ts": "needle\n",
    "src/main.ts": "const needle = 1;\nfoobar needle\nfoo needle\n",
    "src/crlf.ts": "needle\r\nsecond needle\r\n",
    "src/plain.ts": "needle\n",
    "src/bom.ts": "\uFEFFneedle first\n",
    "src/unicode.md": "naïve needle ☃\nΣ needle\n",
    "src/long.txt": "needle " + "y".repeat(800) + "\n",
    "src/many.txt": many,
    "src/big.txt": "needle\n" + "z".repeat(3000),
    "src/bin.dat": Uint8Array.from([110, 101, 101, 100, 108, 101, 10, 0, 1, 2]),
    ".hidden/h.ts": "needle\n",
    ".dot.ts": "needle\n",
    "docs/readme.txt": "Needle NEEDLE needle\n",
    "docs/deep/a/b/c.ts": "x needle\n",
  });
  await Deno.symlink(path.join(dir, "src/main.ts"), path.join(dir, "docs/link.ts"));
  const files = [
    "src/keep.log",
    "src/main.ts",
    "src/crlf.ts",
    "src/bom.ts",
    "src/unicode.md",
    "src/long.txt",
    "src/many.txt",
    "src/big.txt",
    "docs/readme.txt",
    "docs/deep/a/b/c.ts",
  ];
  // Distinct times for most files, and two equal ones to check the tie-break by path.
  for (const [i, f] of files.entries()) {
    await touch(path.join(dir, f), 1_700_000_000 + (i < 8 ? i : 7) * 10);
  }
}

const QUERIES: Record<string, unknown>[] = [
  { pattern: "needle" },
  { pattern: "needle", max: 300 },
  { pattern: "^needle$" },
  { pattern: "foo(bar)?\\s+needle" },
  { pattern: "[Nn]eedle", path: "docs" },
  { pattern: "needle", include: "*.ts" },
  { pattern: "needle", include: "src/*.{ts,md}" },
  { pattern: "needle", include: "*.log" },
  { pattern: "Σ needle|naïve" },
  { pattern: "needle = 1;", literal_text: true },
];

Deno.test({
  name: `grep: ripgrep and the built-in search give identical output${
    RG ? ` (${RG})` : " (SKIPPED: rg not on PATH)"
  }`,
  ignore: RG === null,
  async fn() {
    const { dir, cleanup } = await tempWorkspace();
    try {
      await richTree(dir);
      const ctx = makeContext(dir);
      for (const { max, ...args } of QUERIES) {
        const opts = { max_file_bytes: 2000, max_results: (max as number | undefined) ?? 100 };
        const viaRg = await call(createGrepTool({ ...opts, ripgrep: "rg" }), args, ctx);
        const viaJs = await call(createGrepTool({ ...opts, ripgrep: false }), args, ctx);
        assert.equal(viaRg.out.content, viaJs.out.content, JSON.stringify(args));
        assert.notEqual(viaJs.out.content, "No files found", JSON.stringify(args));
      }
      // Make sure the rg side really ran rg (and did not fall back).
      const direct = await searchWithRg({
        root: dir,
        pattern: "needle",
        include: null,
        maxPerFile: 100,
        maxFileBytes: 2000,
      }, "rg");
      assert.ok(direct !== null && direct.length > 100);
    } finally {
      await cleanup();
    }
  },
});

Deno.test({
  name: `grep: falls back to the built-in search for JS-only regex syntax${
    RG ? "" : " (SKIPPED: rg not on PATH)"
  }`,
  ignore: RG === null,
  async fn() {
    const { dir, cleanup } = await tempWorkspace();
    try {
      await writeTree(dir, { "a.txt": "needle\nneedless\n" });
      const req = {
        root: dir,
        pattern: "need(?=le$)",
        include: null,
        maxPerFile: 100,
        maxFileBytes: 1e6,
      };
      assert.equal(await searchWithRg(req, "rg"), null); // Rust regex has no lookahead
      const { out } = await call(createGrepTool(), { pattern: "need(?=le$)" }, makeContext(dir));
      assert.equal(out.content, `Found 1 matches\n${path.join(dir, "a.txt")}:\n  Line 1: needle`);
    } finally {
      await cleanup();
    }
  },
});

Deno.test("grep: an rg that cannot be spawned falls back with the same output", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await richTree(dir);
    const ctx = makeContext(dir);
    const missing = await call(createGrepTool({ ripgrep: "no-such-ripgrep-binary" }), {
      pattern: "needle",
    }, ctx);
    const js = await call(builtin, { pattern: "needle" }, ctx);
    assert.equal(missing.out.content, js.out.content);
    assert.match(js.out.content, /^Found \d+\+ matches in \d+ files; showing the first 100\n/);
  } finally {
    await cleanup();
  }
});

Deno.test("grep: a file as path searches that file only; a cancelled call stops", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "one.txt": "needle\nhay\nneedle again\n", "two.txt": "needle\n" });
    const ctx = makeContext(dir);
    const { out } = await call(createGrepTool(), { pattern: "needle", path: "one.txt" }, ctx);
    const one = path.join(dir, "one.txt");
    assert.equal(out.content, `Found 2 matches\n${one}:\n  Line 1: needle\n  Line 3: needle again`);
    const cancelled = { ...ctx, signal: AbortSignal.abort() };
    for (const tool of [builtin, createGrepTool()]) {
      await assert.rejects(call(tool, { pattern: "needle" }, cancelled), { name: "AbortError" });
    }
  } finally {
    await cleanup();
  }
});

Deno.test("grep, glob, view: a FIFO in the tree never blocks", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "a.txt": "needle\n" });
    const made = await new Deno.Command("mkfifo", { args: [path.join(dir, "pipe.txt")] }).output();
    assert.ok(made.success, "mkfifo failed");
    const ctx = makeContext(dir);
    for (const tool of [builtin, createGrepTool()]) {
      const { out } = await call(tool, { pattern: "needle" }, ctx);
      assert.equal(out.content, `Found 1 matches\n${path.join(dir, "a.txt")}:\n  Line 1: needle`);
    }
    const glob = await call(createGlobTool(), { pattern: "*.txt" }, ctx);
    assert.equal(glob.out.content, path.join(dir, "a.txt"));
    const view = await call(createViewTool(), { file_path: "pipe.txt" }, ctx);
    assert.equal(view.out.is_error, true);
    assert.match(view.out.content, /not a regular file/);
  } finally {
    await cleanup();
  }
});
