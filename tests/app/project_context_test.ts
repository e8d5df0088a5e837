/**
 * Context files, git facts, skills and the assembled prompt, on real folders in a
 * temp dir and a real git repository.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { environmentInfo, findContextFiles } from "../../src/app/project_context.ts";
import { findSkills, frontMatter } from "../../src/app/skills.ts";
import { gatherSystemPrompt } from "../../src/app/prompt_parts.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import { resolveModel } from "../../src/catalog/mod.ts";
import { PROMPT_CAPS } from "../../src/agent/system_prompt.ts";

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-context-" }));
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

Deno.test("context files from the root down to the cwd, local and case variants, rules, context_paths", async () => {
  const top = await tempDir();
  try {
    const root = join(top, "repo");
    const sub = join(root, "pkg", "api");
    await write(join(top, "AGENTS.md"), "ABOVE THE ROOT");
    await write(join(root, "AGENTS.md"), "root agents");
    await write(join(root, "AGENTS.local.md"), "root agents local");
    await write(join(root, "CRUSH.md"), "root crush");
    await write(join(root, "gemini.md"), "root gemini lower case");
    await write(join(root, ".cursorrules"), "cursor rules file");
    await write(join(root, ".cursorrules.local"), "cursor rules local");
    await write(join(root, ".cursor", "rules", "b.mdc"), "rule b");
    await write(join(root, ".cursor", "rules", "a.mdc"), "rule a");
    await write(join(root, ".cursor", "rules", "nested", "c.mdc"), "rule c");
    await write(join(root, ".github", "copilot-instructions.md"), "copilot");
    await write(join(root, ".github", "copilot-instructions.local.md"), "copilot local");
    await write(join(root, "docs", "extra.md"), "extra by path");
    await write(join(root, "docs", "guides", "one.md"), "guide one");
    await write(join(root, "docs", "guides", "two.md"), "guide two");
    await write(join(root, "pkg", "AGENTS.md"), "pkg agents");
    await write(join(sub, "CLAUDE.local.md"), "api claude local");
    await write(join(sub, "Agents.md"), "api agents");
    await write(join(root, "empty", "AGENTS.md"), "not on the way down");
    // A symlinked CLAUDE.md (a common setup) is the same file as AGENTS.md: counted once.
    await Deno.symlink(join(root, "AGENTS.md"), join(root, "CLAUDE.md"));
    await write(join(root, "MOPAC.md"), "   \n"); // empty files are skipped

    const files = await findContextFiles({
      root,
      cwd: sub,
      contextPaths: ["docs/extra.md", "docs/guides", "AGENTS.md", "missing.md"],
      globalDir: null,
    });
    assert.deepEqual(files.map((f) => [f.path, f.content]), [
      ["AGENTS.md", "root agents"],
      ["AGENTS.local.md", "root agents local"],
      ["CRUSH.md", "root crush"],
      ["gemini.md", "root gemini lower case"],
      [".cursorrules", "cursor rules file"],
      [".cursorrules.local", "cursor rules local"],
      [".github/copilot-instructions.md", "copilot"],
      [".github/copilot-instructions.local.md", "copilot local"],
      [".cursor/rules/a.mdc", "rule a"],
      [".cursor/rules/b.mdc", "rule b"],
      [".cursor/rules/nested/c.mdc", "rule c"],
      ["pkg/AGENTS.md", "pkg agents"],
      ["pkg/api/Agents.md", "api agents"],
      ["pkg/api/CLAUDE.local.md", "api claude local"],
      ["docs/extra.md", "extra by path"],
      ["docs/guides/one.md", "guide one"],
      ["docs/guides/two.md", "guide two"],
    ]);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("global context: AGENTS.md in the user's mopac dir and global_context_paths come first", async () => {
  const top = await tempDir();
  try {
    const root = join(top, "repo");
    const globalDir = join(top, "config", "mopac");
    const home = join(top, "home");
    await write(join(root, "AGENTS.md"), "project");
    await write(join(globalDir, "AGENTS.md"), "global agents");
    await write(join(globalDir, "prefs", "style.md"), "global style");
    await write(join(home, "notes.md"), "from home");
    const files = await findContextFiles({
      root,
      cwd: root,
      globalDir,
      globalPaths: ["prefs", "~/notes.md"],
      home,
    });
    assert.deepEqual(files.map((f) => [f.path, f.content]), [
      [join(globalDir, "AGENTS.md"), "global agents"],
      [join(globalDir, "prefs", "style.md"), "global style"],
      [join(home, "notes.md"), "from home"],
      ["AGENTS.md", "project"],
    ]);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("a cwd outside the root reads only the cwd's files", async () => {
  const top = await tempDir();
  try {
    await write(join(top, "a", "AGENTS.md"), "root a");
    await write(join(top, "b", "AGENTS.md"), "cwd b");
    const files = await findContextFiles({
      root: join(top, "a"),
      cwd: join(top, "b"),
      globalDir: null,
    });
    assert.deepEqual(files.map((f) => f.content), ["cwd b"]);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("only the start of a huge context file is read; the prompt caps it", async () => {
  const top = await tempDir();
  try {
    await write(join(top, "AGENTS.md"), "RULE ".repeat(400_000)); // 2 MB
    const files = await findContextFiles({ root: top, cwd: top, globalDir: null });
    assert.equal(files.length, 1);
    assert.equal(files[0].truncated, true);
    assert.ok(files[0].content.length <= 256 * 1024);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("git facts in a repository: branch, short status, the last three commits", async () => {
  const repo = await tempDir();
  try {
    await git(repo, "init", "-q", "-b", "trunk");
    for (const n of [1, 2, 3, 4]) {
      await write(join(repo, `f${n}.txt`), `${n}`);
      await git(repo, "add", ".");
      await git(repo, "commit", "-q", "-m", `commit number ${n}`);
    }
    await write(join(repo, "f1.txt"), "changed");
    await write(join(repo, "untracked.txt"), "new");
    await Deno.mkdir(join(repo, "deep"));
    const info = await environmentInfo(join(repo, "deep"), new Date("2025-03-04T10:00:00Z"));
    assert.equal(info.date, "2025-03-04");
    assert.ok(info.git, "git info expected in a repository");
    assert.equal(info.git.branch, "trunk");
    // Paths relative to the cwd, the working directory the prompt names.
    assert.match(info.git.status, /^ M \.\.\/f1\.txt$/m);
    assert.match(info.git.status, /^\?\? \.\.\/untracked\.txt$/m);
    const commits = info.git.commits.trim().split("\n");
    assert.equal(commits.length, 3);
    assert.match(commits[0], /commit number 4/);
    assert.match(commits[2], /commit number 2/);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("a huge git status is read only in part", async () => {
  const repo = await tempDir();
  try {
    await git(repo, "init", "-q");
    const name = "x".repeat(80);
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => Deno.writeTextFile(join(repo, `${name}${i}`), "")),
    );
    const info = await environmentInfo(repo, new Date());
    assert.ok(info.git);
    assert.ok(info.git.status.length < 8_100, String(info.git.status.length));
    assert.match(info.git.status, /\?\? x+\d+\n\[\.\.\. more lines cut\]\n$/);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("git facts before the first commit, and none outside a repository", async () => {
  const top = await tempDir();
  try {
    const repo = join(top, "fresh");
    await Deno.mkdir(repo);
    await git(repo, "init", "-q", "-b", "start");
    await write(join(repo, "a.txt"), "a");
    const fresh = await environmentInfo(repo, new Date());
    assert.equal(fresh.git?.branch, "start");
    assert.match(fresh.git?.status ?? "", /\?\? a\.txt/);
    assert.equal(fresh.git?.commits, "");

    const plain = join(top, "plain");
    await Deno.mkdir(plain);
    // A temp dir is in no repository unless the machine's /tmp is one.
    const outside = await environmentInfo(plain, new Date());
    assert.equal(outside.git, undefined);
    assert.equal(outside.cwd, plain);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("skills: SKILL.md folders with name and description, invalid and disabled ones left out", async () => {
  const top = await tempDir();
  try {
    await write(
      join(top, "skills", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: Fill and merge PDF files\n---\n# PDF\n",
    );
    await write(
      join(top, "skills", "group", "release", "SKILL.md"),
      "\uFEFF---\r\nname: release\r\ndescription: >\r\n  Cut a release:\r\n  tag and notes\r\n---\r\n",
    );
    await write(join(top, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\n");
    await write(join(top, "skills", "nofront", "SKILL.md"), "# no front matter\n");
    await write(
      join(top, "skills", "hidden", "SKILL.md"),
      "---\nname: hidden\ndescription: x\ndisable-model-invocation: true\n---\n",
    );
    await write(join(top, "skills", "off", "SKILL.md"), "---\nname: off\ndescription: 'y'\n---\n");
    const skills = await findSkills(top, {
      paths: ["skills", "no-such-dir"],
      disabled: ["off"],
    });
    assert.deepEqual(skills, [
      {
        name: "release",
        description: "Cut a release: tag and notes",
        path: join(top, "skills", "group", "release", "SKILL.md"),
      },
      {
        name: "pdf",
        description: "Fill and merge PDF files",
        path: join(top, "skills", "pdf", "SKILL.md"),
      },
    ]);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("front matter: quotes, comments, literal blocks", () => {
  assert.deepEqual(frontMatter('---\nname: "a b"\nx: 1 # note\ndesc: |\n  one\n  two\n---\nbody'), {
    name: "a b",
    x: "1",
    desc: "one\ntwo",
  });
  assert.equal(frontMatter("no front matter"), undefined);
  assert.equal(frontMatter("---\nname: unclosed\n"), undefined);
});

Deno.test("the assembled prompt: nested context files, profile prompt file, skills, git, caps", async () => {
  const top = await tempDir();
  try {
    const repo = join(top, "repo");
    const sub = join(repo, "app");
    await Deno.mkdir(sub, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    await write(join(repo, "AGENTS.md"), "ROOT-CONTEXT");
    await write(join(sub, "AGENTS.md"), "SUB-CONTEXT");
    await write(join(repo, "HUGE.md"), "H".repeat(PROMPT_CAPS.contextFile + 5_000));
    await write(join(repo, "prompts", "fixer.md"), "FIXER-PROMPT-FILE");
    await write(
      join(repo, "skills", "lint", "SKILL.md"),
      "---\nname: lint\ndescription: Run the linter\n---\n",
    );
    await write(
      join(repo, "mopac.json"),
      JSON.stringify({
        options: { context_paths: ["HUGE.md"], skills_paths: ["skills"] },
        agents: { fixer: { allowed_tools: ["view"], prompt_file: "prompts/fixer.md" } },
      }),
    );
    await git(repo, "add", ".");
    await git(repo, "commit", "-q", "-m", "initial layout");
    const loaded = await loadConfig({
      cwd: sub,
      env: () => undefined,
      home: join(top, "home"),
      systemFile: join(top, "none.json"),
      // The repository's mopac.json is the test's own.
      trustProject: true,
    });
    const profile = resolveProfile("fixer", loaded.config);
    const model = resolveModel("openai/gpt-4.1", {
      config: loaded.config,
      env: (n) => (n === "OPENAI_API_KEY" ? "sk-test" : undefined),
    });
    const opts = { loaded, cwd: sub, model, profile, mcpInstructions: [], tools: ["view"] };
    const text = await gatherSystemPrompt(opts);
    const at = (s: string) => text.indexOf(s);
    assert.ok(at("ROOT-CONTEXT") > 0 && at("SUB-CONTEXT") > at("ROOT-CONTEXT"), text);
    assert.ok(at("FIXER-PROMPT-FILE") > 0);
    assert.match(
      text,
      /Git branch: main\nGit status when the run started \(not updated; mopac's data folder left out\):\nclean\nRecent commits:\n[0-9a-f]+ initial layout/,
    );
    assert.match(text, /- lint: Run the linter \(.*skills\/lint\/SKILL\.md\)/);
    assert.match(text, /## HUGE\.md\n\nH+\n\[\.\.\. cut: 5000 more characters\]/);
    // Stable: a second build in the same state gives the same bytes.
    assert.equal(await gatherSystemPrompt(opts), text);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});
