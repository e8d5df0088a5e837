/**
 * The repository stands alone and its documentation holds: nothing refers to files
 * outside the clone, every relative link in the README and docs/ resolves, and every
 * config example in them (a ```jsonc block) is valid against `mopac schema` and
 * passes `mopac config validate`.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseJsonc } from "jsonc-parser";
import { REPO, runMopac } from "./_support/run_mopac.ts";

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

/** The ```jsonc blocks of a Markdown file, with the line each starts on. */
function jsoncBlocks(file: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  const lines = Deno.readTextFileSync(file).split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```jsonc") continue;
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
