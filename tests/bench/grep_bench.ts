/**
 * grep on a generated 50,000-file tree: our tool (ripgrep backend and built-in
 * backend) against `rg` run directly. Prints figures; asserts nothing.
 *
 *   deno run -A tests/bench/grep_bench.ts [--files 50000] [--runs 5]
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { createGrepTool } from "../../src/tools/grep.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { testToolContext } from "../_support/tool_context.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { files: { type: "string", default: "50000" }, runs: { type: "string", default: "5" } },
});
const FILES = Number(values.files);
const RUNS = Number(values.runs);
const PER_DIR = 100;

async function generate(root: string): Promise<void> {
  await Deno.writeTextFile(path.join(root, ".gitignore"), "ignored/\n");
  const body = Array.from(
    { length: 12 },
    (_, i) => `  const value${i} = compute(${i}, "text ${i}");`,
  ).join("\n");
  const writes: Promise<void>[] = [];
  for (let i = 0; i < FILES; i++) {
    const sub = `d${Math.floor(i / PER_DIR)}`;
    if (i % PER_DIR === 0) {
      await Deno.mkdir(path.join(root, "src", sub), { recursive: true });
      await Deno.mkdir(path.join(root, "ignored", sub), { recursive: true });
    }
    // 1 file in 50 lands in a .gitignored folder that every search must skip.
    const dir = path.join(root, i % 50 === 49 ? "ignored" : "src", sub);
    // Every file has one "// file N" line; 1 file in 100 also has the rare needle.
    const rare = i % 100 === 7 ? "\n  // NEEDLE_RARE marker\n" : "\n";
    writes.push(
      Deno.writeTextFile(
        path.join(dir, `f${i}.ts`),
        `// file ${i}\nfunction f${i}() {\n${body}${rare}}\n`,
      ),
    );
    if (writes.length >= 256) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

function context(workspace: string): ToolContext {
  return testToolContext(workspace, { session_id: "bench" });
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up (page cache, JIT)
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

function row(label: string, ms: number[]) {
  const median = ms[Math.floor(ms.length / 2)];
  console.log(
    `${label.padEnd(46)} median ${median.toFixed(0).padStart(6)} ms   min ${
      ms[0].toFixed(0).padStart(6)
    } ms`,
  );
}

async function rgDirect(args: string[]): Promise<void> {
  const out = await new Deno.Command("rg", { args, stdout: "piped", stderr: "null" }).output();
  if (out.code > 1) throw new Error(`rg exited ${out.code}`);
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-grep-bench-" }));
try {
  const t0 = performance.now();
  await generate(root);
  console.log(
    `tree: ${FILES} files under ${root} (generated in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s), ${RUNS} runs each after 1 warm-up`,
  );
  let hasRg = true;
  try {
    await rgDirect(["--version"]);
  } catch {
    hasRg = false;
    console.log("rg is not on PATH: only the built-in search is measured");
  }
  const ctx = context(root);
  for (
    const [name, pattern, expect] of [
      ["rare pattern (~495 matching files)", "NEEDLE_RARE", "Found"],
      ["common pattern (~49,000 files, 1 line each)", "^// file \\d+$", "Found"],
    ] as const
  ) {
    console.log(`\n${name}: /${pattern}/`);
    if (hasRg) {
      row(
        "rg -n (direct)",
        await time(() => rgDirect(["-n", "--no-require-git", "-e", pattern, root])),
      );
      row(
        "rg --json (direct)",
        await time(() => rgDirect(["--json", "--no-require-git", "-e", pattern, root])),
      );
      const viaRg = createGrepTool({ ripgrep: "rg" });
      const input = viaRg.parse({ pattern });
      const first = await viaRg.run(input, ctx);
      if (!first.content.startsWith(expect)) throw new Error(first.content.slice(0, 200));
      row("grep tool, ripgrep backend", await time(() => viaRg.run(input, ctx)));
    }
    const viaJs = createGrepTool({ ripgrep: false });
    const input = viaJs.parse({ pattern });
    row("grep tool, built-in backend", await time(() => viaJs.run(input, ctx)));
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
