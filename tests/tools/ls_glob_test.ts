import assert from "node:assert/strict";
import * as path from "node:path";
import { createGlobTool } from "../../src/tools/glob.ts";
import { createLsTool } from "../../src/tools/ls.ts";
import { call, makeContext, tempWorkspace, touch, writeTree } from "./_helpers.ts";

const TREE = {
  ".gitignore": "dist/\n*.log\n",
  ".env": "X=1\n",
  ".git/HEAD": "ref: refs/heads/main\n",
  ".github/workflows/ci.yml": "on: push\n",
  "README.md": "# r\n",
  "app.log": "log\n",
  "dist/bundle.js": "x\n",
  "node_modules/pkg/index.js": "x\n",
  "src/main.ts": "x\n",
  "src/util/strings.ts": "x\n",
  "src/util/strings_test.ts": "x\n",
  "src/view.tsx": "x\n",
  "src/.gitignore": "!keep.log\ngenerated.ts\n",
  "src/keep.log": "kept\n",
  "src/generated.ts": "x\n",
};

Deno.test("ls: tree in crush's format; .gitignore, .git and node_modules left out", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, TREE);
    const ctx = makeContext(dir);
    const { out, access } = await call(createLsTool(), {}, ctx);
    assert.deepEqual(access, { reads: [dir] });
    assert.equal(
      out.content,
      [
        `- ${dir}/`,
        "  - .github/",
        "    - workflows/",
        "      - ci.yml",
        "  - src/",
        "    - util/",
        "      - strings.ts",
        "      - strings_test.ts",
        "    - .gitignore",
        "    - keep.log",
        "    - main.ts",
        "    - view.tsx",
        "  - .env",
        "  - .gitignore",
        "  - README.md",
      ].join("\n"),
    );
  } finally {
    await cleanup();
  }
});

Deno.test("ls: ignore patterns, depth, config limits and their notes", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, TREE);
    const ctx = makeContext(dir);
    const ignored = await call(createLsTool(), {
      path: "src",
      ignore: ["*_test.ts", "util/strings.ts", "*.log"],
    }, ctx);
    assert.equal(
      ignored.out.content,
      [`- ${dir}/src/`, "  - util/", "  - .gitignore", "  - main.ts", "  - view.tsx"].join("\n"),
    );
    const shallow = await call(createLsTool(), { path: "src", depth: 1 }, ctx);
    assert.match(shallow.out.content, /^The tree is shown to a depth of 1\./);
    assert.doesNotMatch(shallow.out.content, /strings\.ts/);
    // Config max_depth caps what a call may ask for.
    const capped = await call(createLsTool({ max_depth: 1 }), { path: "src", depth: 5 }, ctx);
    assert.doesNotMatch(capped.out.content, /strings\.ts/);
    const few = await call(createLsTool({ max_items: 3 }), {}, ctx);
    assert.match(
      few.out.content,
      /^There are more than 3 entries under .*\. The first 3 \(breadth-first\)/,
    );
    assert.equal(few.out.content.split("\n").filter((l) => l.startsWith("  ")).length, 3);
  } finally {
    await cleanup();
  }
});

Deno.test("ls: a missing path and a file are errors", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, { "f.txt": "x" });
    const ctx = makeContext(dir);
    const missing = await call(createLsTool(), { path: "nope" }, ctx);
    assert.equal(missing.out.is_error, true);
    assert.match(missing.out.content, /Path does not exist: .*nope/);
    const file = await call(createLsTool(), { path: "f.txt" }, ctx);
    assert.match(file.out.content, /Not a folder/);
  } finally {
    await cleanup();
  }
});

Deno.test("glob: ** patterns, braces, top-level *, .gitignore and hidden rules", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeTree(dir, TREE);
    const ctx = makeContext(dir);
    const glob = createGlobTool();
    const names = async (pattern: string, p?: string) => {
      const { out } = await call(glob, { pattern, ...(p ? { path: p } : {}) }, ctx);
      return out.content === "No files found"
        ? []
        : out.content.split("\n").map((l) => path.relative(dir, l)).sort();
    };
    assert.deepEqual(await names("**/*.ts"), [
      "src/main.ts",
      "src/util/strings.ts",
      "src/util/strings_test.ts",
    ]);
    assert.deepEqual(await names("*.md"), ["README.md"]);
    assert.deepEqual(await names("*.ts"), []); // top level only, like crush
    assert.deepEqual(await names("src/**/*.{ts,tsx}"), [
      "src/main.ts",
      "src/util/strings.ts",
      "src/util/strings_test.ts",
      "src/view.tsx",
    ]);
    assert.deepEqual(await names("**/*.log"), ["src/keep.log"]); // app.log ignored, keep.log re-included
    assert.deepEqual(await names("**/*.js"), ["node_modules/pkg/index.js"]); // not gitignored here
    assert.deepEqual(await names("**/*.yml"), []); // hidden folder skipped…
    assert.deepEqual(await names(".github/**/*.yml"), [".github/workflows/ci.yml"]); // …unless named
    assert.deepEqual(await names("*.ts", "src/util"), [
      "src/util/strings.ts",
      "src/util/strings_test.ts",
    ]);
    assert.deepEqual(await names(`${dir}/src/*.ts`), ["src/main.ts"]);
    const up = await call(glob, { pattern: "../*" }, ctx);
    assert.equal(up.out.is_error, true);
    assert.match(up.out.content, /must not contain "\.\."/);
  } finally {
    await cleanup();
  }
});

Deno.test("glob: newest first, capped with a note", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`f${i}.txt`] = String(i);
    await writeTree(dir, files);
    for (let i = 0; i < 6; i++) await touch(path.join(dir, `f${i}.txt`), 1_700_000_000 + i * 60);
    const ctx = makeContext(dir);
    const all = await call(createGlobTool(), { pattern: "*.txt" }, ctx);
    assert.equal(
      all.out.content,
      [5, 4, 3, 2, 1, 0].map((i) => path.join(dir, `f${i}.txt`)).join("\n"),
    );
    const capped = await call(createGlobTool({ max_results: 2 }), { pattern: "*.txt" }, ctx);
    assert.equal(
      capped.out.content,
      `${path.join(dir, "f5.txt")}\n${
        path.join(dir, "f4.txt")
      }\n\n(Results are truncated: showing ` +
        `the 2 most recently modified of 6 matches. Use a more specific path or pattern.)`,
    );
    const none = await call(createGlobTool(), { pattern: "*.nothing" }, ctx);
    assert.equal(none.out.content, "No files found");
  } finally {
    await cleanup();
  }
});
