/**
 * `deno compile` must get as far as our machines allow: type-check, module graph
 * and npm embedding succeed; only the download of Deno's `denort` base binary may
 * fail (dl.deno.land is unreachable here). Any other failure is a real one. And the
 * lazily loaded parts (commands, the run path, the shell parser, the SDKs) must be in
 * the graph it embeds: every dynamic import is a string literal Deno resolves.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { denoTasks, shippedV8Flags, v8FlagsOf } from "../_support/bundle.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("the installed command and every binary carry the same V8 flags", async () => {
  const shipped = await shippedV8Flags();
  const forms = Object.entries(await denoTasks()).filter(([name]) =>
    name === "install" || /^compile/.test(name)
  );
  assert.ok(forms.length >= 6, "install and the compile tasks");
  for (const [name, task] of forms) assert.deepEqual(v8FlagsOf(task), [shipped], name);
});

Deno.test("deno compile builds the graph and fails only at the base-binary download", async () => {
  const out = await Deno.makeTempDir();
  try {
    const r = await new Deno.Command(Deno.execPath(), {
      // As `deno task compile` runs it, V8 flags included.
      args: ["compile", "--allow-all", await shippedV8Flags(), "-o", `${out}/mopac`, "main.ts"],
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(r.stderr);
    if (r.success) {
      // Where denort is reachable, the binary must be mopac.
      const v = await new Deno.Command(`${out}/mopac`, { args: ["--version"] }).output();
      assert.match(new TextDecoder().decode(v.stdout), /^mopac \d/);
    } else {
      assert.match(stderr, /Setting up base binary/, stderr);
      assert.doesNotMatch(stderr, /Type checking failed|Module not found/, stderr);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("every dynamic import is a literal in the graph deno compile embeds", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  type Dep = {
    specifier: string;
    isDynamic?: boolean;
    code?: { specifier?: string; error?: string };
  };
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: Array<{ specifier: string; dependencies?: Dep[] }>;
  };
  const inGraph = new Set(info.modules.map((m) => m.specifier));
  const dynamic = info.modules.flatMap((m) =>
    (m.dependencies ?? []).filter((d) => d.isDynamic).map((d) => ({ from: m.specifier, d }))
  );
  const lost = dynamic.filter(({ d }) => {
    const to = d.code?.specifier;
    return d.code?.error !== undefined || !to || (!to.startsWith("npm:") && !inGraph.has(to));
  });
  assert.deepEqual(lost.map(({ from, d }) => `${from} -> ${d.specifier}`), []);
  const targets = dynamic.map(({ d }) => d.specifier);
  for (
    const lazy of [
      "./src/cli/mod.ts",
      "../../app/run.ts",
      "./shell/parse.ts",
      "./sh_package.ts",
      "../mcp/manager.ts",
      "diff",
      "ignore",
    ]
  ) {
    assert.ok(targets.includes(lazy), `${lazy} is not imported lazily any more`);
  }
  // A computed specifier would be missing from the graph without any error above.
  const computed: string[] = [];
  for (const file of sources(`${REPO}src`)) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/(?<!typeof\s)\bimport\(\s*([^"\s)])/g)) {
      computed.push(`${file.slice(REPO.length)}: import(${m[1]}…`);
    }
  }
  assert.deepEqual(computed, []);
});

function* sources(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}
