/**
 * The repository stands alone and its documentation holds: nothing refers to files
 * outside the clone, every relative link in the README and docs/ resolves, every
 * config example in them (a ```jsonc block) is valid against `mopac schema` and
 * passes `mopac config validate`, and the README's commands (its ```sh blocks) run
 * as written, offline, against a fake provider.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseJsonc } from "jsonc-parser";
import { cleanDenoEnv, MAIN, REPO, runMopac } from "./_support/run_mopac.ts";
import { scriptText, startFakeOpenAI } from "./_support/fake_openai.ts";
import { JAIL_ENV } from "./_support/jail.ts";
import { buildBundle } from "./_support/bundle.ts";

/** Folders that are not the project's own text: git's, build output, a local data dir. */
const SKIP = new Set([".git", "dist", "cov", ".mopac", "node_modules"]);

function* files(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    if (SKIP.has(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory) yield* files(path);
    else if (e.isFile) yield path;
  }
}

const docs = () => [
  join(REPO, "README.md"),
  ...[...Deno.readDirSync(join(REPO, "docs"))]
    .filter((e) => e.name.endsWith(".md"))
    .map((e) => join(REPO, "docs", e.name)),
];

Deno.test("no file in the repository refers to the shared folder outside it", () => {
  // Spelled in two pieces so this file does not match itself.
  const outside = ["..", "shared"].join("/");
  const hits: string[] = [];
  for (const file of files(REPO)) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(file));
    } catch {
      continue; // binary
    }
    if (text.includes(outside)) hits.push(relative(REPO, file));
  }
  assert.deepEqual(hits, []);
});

Deno.test("the README and docs/ speak of the project, not of the authors' machines", () => {
  const outsideTalk = [
    /\bour (build |CI )?machines?\b/i,
    /(?<![\w.])\/work\//,
    /\bshared\/(DESIGN|notes|fixtures)/,
    /\bDESIGN\.md\b/,
  ];
  const hits: string[] = [];
  for (const file of docs()) {
    const lines = Deno.readTextFileSync(file).split("\n");
    lines.forEach((line, i) => {
      for (const re of outsideTalk) {
        if (re.test(line)) hits.push(`${relative(REPO, file)}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(hits, []);
});

Deno.test("every relative link in the README and docs/ points at a file in the repository", () => {
  const broken: string[] = [];
  for (const file of docs()) {
    const text = Deno.readTextFileSync(file);
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split("#")[0];
      if (target === "" || /^[a-z]+:/i.test(target)) continue;
      const path = join(file, "..", target);
      if (!path.startsWith(REPO) || !exists(path)) broken.push(`${relative(REPO, file)}: ${m[1]}`);
    }
  }
  assert.deepEqual(broken, []);
});

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The ```jsonc (or other `lang`) blocks of a Markdown file, with the line each starts on. */
function jsoncBlocks(file: string, lang = "jsonc"): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  const lines = Deno.readTextFileSync(file).split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```" + lang) continue;
    const start = i + 1;
    while (++i < lines.length && lines[i].trim() !== "```");
    out.push({ line: start + 1, text: lines.slice(start, i).join("\n") });
  }
  return out;
}

Deno.test("every config example in the docs is valid against `mopac schema` and loads", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-docs-" }));
  try {
    const perms = { read: [dir], write: [dir], env: ["MOPAC_*"] };
    const schema = await runMopac(["schema"], { cwd: dir, perms });
    assert.equal(schema.code, 0, schema.stderr);
    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
      .compile(JSON.parse(schema.stdout));

    const examples = docs().flatMap((file) =>
      jsoncBlocks(file).map((b) => ({ ...b, where: `${relative(REPO, file)}:${b.line}` }))
    );
    assert.ok(examples.length >= 5, `only ${examples.length} config examples found`);
    const problems: string[] = [];
    for (const [i, example] of examples.entries()) {
      const errors: unknown[] = [];
      const value = parseJsonc(example.text, errors as never, { allowTrailingComma: true });
      if (errors.length > 0) {
        problems.push(`${example.where}: not JSONC`);
        continue;
      }
      if (!validate(value)) {
        problems.push(`${example.where}: ${JSON.stringify(validate.errors)}`);
        continue;
      }
      // The loader checks more than the schema can say (durations, commands, urls).
      const file = join(dir, `example-${i}.jsonc`);
      await Deno.writeTextFile(file, example.text);
      const r = await runMopac(["config", "validate", "--config", file], { cwd: dir, perms });
      if (r.code !== 0) problems.push(`${example.where}: ${r.stderr.trim()}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's commands run as written, offline, against a fake provider", async () => {
  const fake = await startFakeOpenAI({ turns: () => scriptText("done") });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-readme-" }));
  try {
    // A repository with a change, so `git diff` has something to pipe.
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" }).output();
    await git("init", "-q");
    await Deno.writeTextFile(`${dir}/app.ts`, "export const a = 1;\n");
    await git("add", "app.ts");
    await git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    await Deno.writeTextFile(`${dir}/app.ts`, "export const a = 2;\n");
    // The README's config examples that define profiles go where it says: the user's config.
    const readme = join(REPO, "README.md");
    const profiles = jsoncBlocks(readme).filter((b) => b.text.includes('"agents"'));
    assert.equal(profiles.length, 1, "one README example defines the profiles it uses");
    await Deno.mkdir(`${dir}/xdg/mopac`, { recursive: true });
    await Deno.writeTextFile(`${dir}/xdg/mopac/mopac.json`, profiles[0].text);

    // What runs mopac (or main.ts, from the clone, or what `deno task build` wrote there)
    // and sets its environment; not installs.
    const built = await buildBundle(`${dir}/build`);
    const lines = jsoncBlocks(readme, "sh").flatMap((b) => b.text.split("\n"))
      .filter((l) => /^export |(^|\| )mopac |main\.ts/.test(l) && !/^(npx|deno task) /.test(l))
      .map((l) => l.replaceAll(" main.ts", ` ${MAIN}`))
      .map((l) => l.replaceAll(" dist/bundle/main.js", ` ${built}`));
    assert.ok(lines.some((l) => l.includes(built)), "the README runs the build");
    assert.ok(lines.length >= 6, lines.join("\n"));
    const script = [
      "set -o pipefail",
      // The installed command runs with --allow-all; tests load modules from the cache only.
      `mopac() { command deno run --cached-only -A '${MAIN}' "$@"; }`,
      `deno() { if [ "$1" = run ]; then shift; command deno run --cached-only "$@"; ` +
      `else command deno "$@"; fi; }`,
      ...lines.map((l) =>
        `${l} > /dev/null || { echo "failed ($?): ${l.replaceAll('"', '\\"')}" >&2; exit 1; }`
      ),
    ].join("\n");
    const out = await new Deno.Command("bash", {
      args: ["-c", script],
      cwd: dir,
      clearEnv: true,
      env: {
        ...cleanDenoEnv(),
        ...JAIL_ENV,
        HOME: dir,
        XDG_CONFIG_HOME: `${dir}/xdg`,
        LITELLM_BASE_URL: fake.url,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    // Every run reached the fake on the README's model, each with its own prompt.
    const prompts = fake.turnRequests().map((r) =>
      String(r.messages.filter((m) => m.role === "user").at(-1)?.content)
    );
    for (
      const p of [
        "add a test for parseDuration",
        "now make it pass",
        "review this diff",
        "fix the failing lint",
        "fix the build",
      ]
    ) {
      assert.ok(prompts.some((q) => q.endsWith(p)), `${p} in ${JSON.stringify(prompts)}`);
    }
    assert.ok(prompts.some((q) => q.includes("+export const a = 2;")), "git diff was piped");
    assert.ok(fake.turnRequests().every((r) => r.model === "gpt-5"));
    assert.deepEqual(fake.rejected, []);
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
