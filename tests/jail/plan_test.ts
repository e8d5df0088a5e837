/**
 * What a jail allows, as paths: write globs become folders, the data dir and every
 * git folder's hooks and config are read-only, and denied files, sockets and what
 * the probe found in HOME are hidden.
 */
import assert from "node:assert/strict";
import { buildPlan, staticPrefix, surveyRequest, writeRoots } from "../../src/jail/plan.ts";
import { PathGlobs } from "../../src/permission/match.ts";
import { DATA_DIR_GITIGNORE } from "../../src/util/data_dir.ts";

Deno.test("plan: a write glob grants the folder before its first wildcard", () => {
  assert.equal(staticPrefix("src/**/*.ts"), "src");
  assert.equal(staticPrefix("tests/**"), "tests");
  assert.equal(staticPrefix("docs/readme.md"), "docs/readme.md");
  assert.equal(staticPrefix("*.md"), "");
  assert.equal(staticPrefix("/var/cache/app/**"), "/var/cache/app");
  assert.equal(staticPrefix("/*/x"), "/");
  assert.deepEqual(
    writeRoots(["src/**", "src/lib/**", "tests/*.ts", "/opt/out/**"], "/w").sort(),
    ["/opt/out", "/w/src", "/w/tests"],
    "nested roots are dropped",
  );
});

Deno.test("plan: data dir and git folders read-only, denied files and sockets hidden", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-plan-" }));
  const sock = Deno.listen({ transport: "unix", path: `${ws}/agent.sock` });
  try {
    for (const dir of [".git/hooks", "vendor/lib/.git/hooks", "secrets", "node_modules/x", "a/b"]) {
      await Deno.mkdir(`${ws}/${dir}`, { recursive: true });
    }
    for (const file of [".env", "a/b/.env", "a/key.pem", "node_modules/x/.env", "ok.txt"]) {
      await Deno.writeTextFile(`${ws}/${file}`, "x");
    }
    await Deno.symlink(`${ws}/ok.txt`, `${ws}/a/link.pem`);
    const deny = new PathGlobs([".env", "*.pem", "secrets"], { anyDepth: true });
    const plan = await buildPlan({
      workspace: ws,
      denyGlobs: [".env", "*.pem", "secrets"],
      denied: (p) => deny.matches(p, ws),
      dataDir: `${ws}/.mopac`,
      hide: ["/nonexistent/operator.json"],
      network: { mode: "none" },
      home: "/home/someone",
      survey: {
        kinds: new Map([
          ["/home/someone/.ssh", "dir"],
          ["/home/someone/.npmrc", "file"],
          ["/home/someone/.gnupg/S.gpg-agent", "socket"],
          ["/home/someone/dotfiles-link", "link"],
        ]),
      },
    });
    const of = (kind: string) => plan.mounts.filter((m) => m.kind === kind).map((m) => m.path);
    assert.deepEqual(of("write"), [ws, `${ws}/.mopac/cache`]);
    assert.deepEqual(of("read-only").sort(), [
      `${ws}/.git/config`,
      `${ws}/.git/hooks`,
      `${ws}/.mopac`,
      `${ws}/vendor/lib/.git/config`,
      `${ws}/vendor/lib/.git/hooks`,
    ]);
    assert.deepEqual(of("hide-dir").sort(), ["/home/someone/.ssh", `${ws}/secrets`]);
    assert.deepEqual(
      of("hide-file").sort(),
      [
        "/home/someone/.gnupg/S.gpg-agent",
        "/home/someone/.npmrc",
        `${ws}/.env`,
        `${ws}/a/b/.env`,
        `${ws}/a/key.pem`,
        `${ws}/agent.sock`,
        `${ws}/ok.txt`, // the target of a denied link
      ].sort(),
    );
    // node_modules is not walked; the cache exists for binding.
    assert.ok(!of("hide-file").includes(`${ws}/node_modules/x/.env`));
    assert.ok((await Deno.stat(`${ws}/.mopac/cache`)).isDirectory);
    // Writable places first, hidden ones last.
    const kinds = plan.mounts.map((m) => m.kind);
    assert.ok(kinds.lastIndexOf("write") < kinds.indexOf("hide-dir"));
  } finally {
    sock.close();
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("plan: paths.write narrows the writable places; an ephemeral run binds no cache", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-plan-" }));
  try {
    const plan = await buildPlan({
      workspace: ws,
      writeGlobs: ["src/**", "*.md"],
      denyGlobs: [],
      denied: () => false,
      dataDir: `${ws}/.mopac`,
      hide: [],
      network: { mode: "none" },
      persistCache: false,
    });
    assert.deepEqual(plan.mounts.filter((m) => m.kind === "write").map((m) => m.path), [ws]);
    assert.match(plan.notes.join("\n"), /starts with a wildcard/);
    assert.equal(plan.cacheDir, undefined);
    await assert.rejects(Deno.lstat(`${ws}/.mopac`), Deno.errors.NotFound);
    const narrow = await buildPlan({
      workspace: ws,
      writeGlobs: ["src/**"],
      denyGlobs: [],
      denied: () => false,
      dataDir: "/elsewhere/data",
      hide: [],
      network: { mode: "none" },
      persistCache: false,
    });
    assert.deepEqual(narrow.mounts.filter((m) => m.kind === "write").map((m) => m.path), [
      `${ws}/src`,
    ]);
    assert.deepEqual(
      narrow.mounts.filter((m) => m.kind === "read-only"),
      [],
      "data dir is not under a write root",
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("plan: the probe looks at HOME's credential stores, sockets and absolute deny globs", () => {
  const req = surveyRequest("/home/u", ["/etc/secret/**", ".env", "/*.key"]);
  assert.ok(req.paths.includes("/home/u/.ssh") && req.paths.includes("/etc/mopac"));
  assert.deepEqual(req.walk, [{ dir: "/etc/secret", depth: 4 }]);
  assert.deepEqual(req.sockets, [{ dir: "/home/u", depth: 4 }]);
  assert.deepEqual(surveyRequest(undefined, []).sockets, []);
});

Deno.test("plan: a data dir the cache creates ignores itself in git; an ephemeral run makes none", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-plan-" }));
  try {
    const input = {
      workspace: ws,
      denyGlobs: [],
      denied: () => false,
      hide: [],
      network: { mode: "none" as const },
    };
    await buildPlan({ ...input, dataDir: `${ws}/gone`, persistCache: false });
    assert.ok(!(await Deno.stat(`${ws}/gone`).then(() => true, () => false)));
    await buildPlan({ ...input, dataDir: `${ws}/.mopac` });
    assert.equal(await Deno.readTextFile(`${ws}/.mopac/.gitignore`), DATA_DIR_GITIGNORE);
    assert.ok((await Deno.stat(`${ws}/.mopac/cache`)).isDirectory);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("plan: an --add-dir folder is writable, and its denied files and git config are not", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-plan-" }));
  const extra = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-plan-extra-" }));
  try {
    await Deno.mkdir(`${extra}/.git/hooks`, { recursive: true });
    await Deno.writeTextFile(`${extra}/.env`, "x");
    const deny = new PathGlobs([".env"], { anyDepth: true });
    const plan = await buildPlan({
      workspace: ws,
      addDirs: [extra, `${ws}/inside`],
      denyGlobs: [".env"],
      denied: (p) => deny.matches(p, ws),
      dataDir: `${ws}/.mopac`,
      hide: [],
      network: { mode: "none" },
      persistCache: false,
    });
    const of = (kind: string) => plan.mounts.filter((m) => m.kind === kind).map((m) => m.path);
    // A folder inside the workspace is writable already: no second mount.
    assert.deepEqual(of("write"), [ws, extra]);
    assert.ok(of("read-only").includes(`${extra}/.git/hooks`));
    assert.ok(of("read-only").includes(`${extra}/.git/config`));
    assert.deepEqual(of("hide-file"), [`${extra}/.env`]);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(extra, { recursive: true });
  }
});
