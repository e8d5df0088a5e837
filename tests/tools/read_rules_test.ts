/**
 * ls, glob and grep (built-in search and ripgrep) apply the read rules to every file
 * they list or read, not only to the folder they were given: denied files are
 * neither shown nor searched, with globs with and without slashes, absolute globs
 * and folder names, and a repository's `.gitignore` negation cannot bring one back.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import { createGlobTool } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { createLsTool } from "../../src/tools/ls.ts";
import { rgExclusions } from "../../src/tools/search/exclusions.ts";
import { searchWithRg } from "../../src/tools/search/search_rg.ts";
import { call, makeContext, tempWorkspace, writeTree } from "./_helpers.ts";

function rgAvailable(): boolean {
  try {
    return new Deno.Command("rg", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const SECRET = "SECRET-MARKER";

async function setup() {
  const ws = await tempWorkspace();
  await writeTree(ws.dir, {
    ".gitignore": "!.npmrc\n!.env\n",
    ".npmrc": `//registry/:_authToken=${SECRET}\n`,
    ".env": `TOKEN=${SECRET}\n`,
    "certs/site.pem": `${SECRET}\n`,
    "deep/er/key.pem": `${SECRET}\n`,
    "secrets/db.txt": `${SECRET}\n`,
    "src/secrets/fine.txt": `${SECRET} but allowed: only the top secrets/ is denied\n`,
    ".github/workflows/ci.yml": `${SECRET}\n`,
    "private/notes.md": `${SECRET}\n`,
    "abs/denied.txt": `${SECRET}\n`,
    "src/app.ts": `const marker = "${SECRET}";\n`,
  });
  const profile = resolveProfile("r", {
    agents: {
      r: {
        allowed_tools: ["ls", "glob", "grep"],
        paths: {
          deny: [
            ".npmrc",
            ".env",
            "**/*.pem",
            "secrets/**",
            ".github/workflows/*",
            "private",
            path.join(ws.dir, "abs/*.txt"),
          ],
        },
      },
    },
  });
  const gate = createGate({ profile, workspace: ws.dir });
  const ctx = { ...makeContext(ws.dir), paths: gate.paths };
  return { ...ws, ctx };
}

const ALLOWED_FILES = ["src/app.ts", "src/secrets/fine.txt"];

for (const backend of ["built-in", "ripgrep"] as const) {
  Deno.test({
    name: `grep (${backend}) searches only files the rules let it read`,
    ignore: backend === "ripgrep" && !rgAvailable(),
    async fn() {
      const { dir, ctx, cleanup } = await setup();
      try {
        const grep = createGrepTool({ ripgrep: backend === "ripgrep" ? "rg" : false });
        for (const input of [{ pattern: SECRET }, { pattern: SECRET, path: "." }]) {
          const { out } = await call(grep, input, ctx);
          const files = out.content.split("\n").filter((l) => l.endsWith(":"))
            .map((l) => path.relative(dir, l.slice(0, -1))).sort();
          assert.deepEqual(files, ALLOWED_FILES, out.content);
        }
        const sub = await call(grep, { pattern: SECRET, path: "deep" }, ctx);
        assert.equal(sub.out.content, "No files found");
      } finally {
        await cleanup();
      }
    },
  });
}

Deno.test("glob lists only files the rules let it read", async () => {
  const { dir, ctx, cleanup } = await setup();
  try {
    const glob = createGlobTool();
    for (const pattern of ["**/*", "**/*.pem", "secrets/**", ".github/**", ".*", "abs/*"]) {
      const { out } = await call(glob, { pattern }, ctx);
      const files = out.content === "No files found"
        ? []
        : out.content.split("\n").map((l) => path.relative(dir, l));
      for (const f of files) {
        assert.ok(
          ALLOWED_FILES.includes(f) || f === ".gitignore",
          `${pattern} listed ${f}`,
        );
      }
    }
  } finally {
    await cleanup();
  }
});

Deno.test("ls shows no denied name and enters no denied folder", async () => {
  const { ctx, cleanup } = await setup();
  try {
    const { out } = await call(createLsTool(), {}, ctx);
    for (const name of [".npmrc", ".env", "site.pem", "key.pem", "db.txt", "ci.yml", "private"]) {
      assert.ok(!out.content.includes(name), `${name} listed:\n${out.content}`);
    }
    assert.match(out.content, /- app\.ts/);
    assert.match(out.content, /- fine\.txt/);
  } finally {
    await cleanup();
  }
});

Deno.test({
  name: "ripgrep gets the deny globs as exclusions (it opens no denied file)",
  ignore: !rgAvailable(),
  async fn() {
    const { dir, ctx, cleanup } = await setup();
    try {
      const globs = ctx.paths.denyGlobs;
      assert.deepEqual(rgExclusions(globs, dir, dir), [
        "!.npmrc",
        "!.env",
        "!**/*.pem",
        "!/secrets/**",
        "!/.github/workflows/*",
        "!private",
        "!/abs/*.txt",
      ]);
      assert.deepEqual(rgExclusions(["src/gen/**", "lib/**"], dir, path.join(dir, "src")), [
        "!/gen/**",
      ]);
      // rg alone, with no check of its results: the exclusions do the work.
      const matches = await searchWithRg({
        root: dir,
        pattern: SECRET,
        include: null,
        maxPerFile: 10,
        maxFileBytes: 1 << 20,
        rgExclude: rgExclusions(globs, dir, dir),
      }, "rg");
      assert.deepEqual(matches?.map((m) => m.rel).sort(), ALLOWED_FILES);
    } finally {
      await cleanup();
    }
  },
});
