/**
 * Path globs as config writes them: with and without a slash, absolute, through a
 * symlinked folder, folder names and trailing slashes, for deny lists and for
 * read/write lists.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PathGlobs } from "../../src/permission/match.ts";

const WS = "/work/repo";

Deno.test("deny globs: slash-less at any depth, with a slash from the root, absolute, folders", () => {
  const deny = new PathGlobs(
    [".env", "secrets/**", "certs/*.pem", ".github/workflows/*", "/etc/**", "private", "build/"],
    { anyDepth: true },
  );
  const denied = [
    ".env",
    "sub/dir/.env",
    "secrets/db.txt",
    "secrets/deep/er/key",
    "certs/site.pem",
    ".github/workflows/ci.yml",
    "private",
    "private/notes.md",
    "src/private/x",
    "build/out.js",
  ];
  for (const rel of denied) assert.equal(deny.matches(join(WS, rel), WS), true, rel);
  assert.equal(deny.matches("/etc/passwd", WS), true);
  assert.equal(deny.matches("/elsewhere/.env", WS), true, "a name is denied outside too");
  const allowed = ["src/app.ts", "certs/readme.md", "certs/sub/x.pem", ".github/dependabot.yml"];
  for (const rel of allowed) assert.equal(deny.matches(join(WS, rel), WS), false, rel);
});

Deno.test("write and read lists: globs with a slash match from the root; no basename matching", () => {
  const write = new PathGlobs(["src/**", "docs/*.md", "/var/out/**"]);
  assert.equal(write.matches(join(WS, "src/a/b.ts"), WS), true);
  assert.equal(write.matches(join(WS, "docs/x.md"), WS), true);
  assert.equal(write.matches("/var/out/f", WS), true);
  assert.equal(write.matches(join(WS, "lib/src/x.ts"), WS), false);
  assert.equal(write.matches(join(WS, "docs/sub/x.md"), WS), false);
  assert.equal(write.matches(join(WS, "README.md"), WS), false);
  const top = new PathGlobs(["*.md"]);
  assert.equal(top.matches(join(WS, "README.md"), WS), true);
  assert.equal(top.matches(join(WS, "docs/x.md"), WS), false, "a write list is not any-depth");
});

Deno.test("an absolute glob also matches through a symlink in its literal part", async () => {
  const real = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_globs_" }));
  const link = `${real}-link`;
  try {
    await Deno.mkdir(join(real, "keys"));
    await Deno.symlink(real, link);
    const deny = new PathGlobs([`${link}/keys/**`], { anyDepth: true });
    // Tools report resolved paths: the glob names the link, the path is the real one.
    assert.equal(deny.matches(join(real, "keys", "id"), WS), true);
    assert.equal(deny.matches(join(real, "other"), WS), false);
  } finally {
    await Deno.remove(link);
    await Deno.remove(real, { recursive: true });
  }
});
