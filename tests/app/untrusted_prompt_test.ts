/**
 * What an untrusted project can put into the prompt: its own files only. A context
 * file, a `.cursor/rules` entry, a `context_paths` folder or a SKILL.md that is a
 * symlink leading out of the project is skipped (a symlinked AGENTS.md would otherwise
 * send /etc/passwd or /proc/self/environ to the provider); files the operator names
 * outside the project are still read. And the check of a project's model choice.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { findContextFiles } from "../../src/app/project_context.ts";
import { findSkills } from "../../src/app/skills.ts";
import { modelChoiceProblem } from "../../src/app/load_config.ts";
import { ConfigSchema } from "../../src/config/mod.ts";

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("an untrusted project's symlinks out of it put nothing into the prompt", async () => {
  const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-confine-" }));
  try {
    const root = join(top, "repo");
    const secret = join(top, "outside", "secret.md");
    await write(secret, "OPERATOR SECRET");
    await write(join(top, "operator", "guide.md"), "operator guide");
    await write(join(root, "README.md"), "project readme");
    await Deno.symlink(secret, join(root, "AGENTS.md"));
    await Deno.symlink("/etc/hostname", join(root, "CLAUDE.md"));
    await Deno.mkdir(join(root, ".cursor", "rules"), { recursive: true });
    await Deno.symlink(secret, join(root, ".cursor", "rules", "x.mdc"));
    await write(join(root, ".cursor", "rules", "ok.mdc"), "project rule");
    await Deno.mkdir(join(root, "docs"));
    await Deno.symlink(secret, join(root, "docs", "leak.md"));
    await Deno.symlink(join(top, "outside"), join(root, "docs-out"));
    await Deno.symlink(join(root, "README.md"), join(root, "docs", "readme-link.md"));
    await write(join(root, "skills", "good", "SKILL.md"), "---\nname: good\ndescription: d\n---\n");
    await write(join(top, "outside", "skill", "SKILL.md"), "---\nname: bad\ndescription: x\n---\n");
    await Deno.symlink(join(top, "outside", "skill"), join(root, "skills", "bad"));

    const opts = {
      root,
      cwd: root,
      globalDir: null,
      contextPaths: ["docs", "docs-out", join(top, "operator", "guide.md")],
    };
    const confined = await findContextFiles({ ...opts, confineTo: root });
    assert.deepEqual(confined.map((f) => [f.path, f.content]), [
      [".cursor/rules/ok.mdc", "project rule"],
      ["docs/readme-link.md", "project readme"],
      [join(top, "operator", "guide.md"), "operator guide"],
    ]);
    const open = await findContextFiles(opts);
    assert.ok(open.some((f) => f.content === "OPERATOR SECRET"), "trusted: read as before");

    const skills = (confineTo?: string) =>
      findSkills(root, { paths: ["skills"], confineTo }).then((s) => s.map((x) => x.name));
    assert.deepEqual(await skills(root), ["good"]);
    assert.deepEqual(await skills(), ["bad", "good"]);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("a project's model choice stands only for a listed model with the operator's key", () => {
  const config = ConfigSchema.parse({
    providers: {
      corp: { base_url: "http://corp/v1", api_key: "k", models: [{ id: "m1" }] },
    },
  });
  const check = (model: Record<string, unknown>, env: Record<string, string> = {}) =>
    modelChoiceProblem(
      { ...config, models: { large: model as { model: string } } },
      "large",
      (n) => env[n],
    );
  assert.equal(check({ provider: "corp", model: "m1" }), undefined);
  assert.equal(check({ model: "m1" }), undefined);
  assert.equal(check({ model: "openai/gpt-5-mini" }, { OPENAI_API_KEY: "sk" }), undefined);
  // The operator lists corp's models: any other id is refused when it is resolved.
  assert.match(check({ provider: "corp", model: "m9" })!, /provider "corp" has no model "m9"/);
  assert.match(check({ model: "openai/gpt-5-mini" })!, /no API key for provider "openai"/);
  assert.match(check({ provider: "evil", model: "x" })!, /unknown provider "evil"/);
  assert.match(check({ model: "$(touch x)" })!, /unknown model/);
});
