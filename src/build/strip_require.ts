/**
 * The last step of `deno task build`: takes `node:module` out of the bundle.
 *
 * For `--platform deno`, Deno's bundler heads the chunk of esbuild's helpers with
 * `import { createRequire } from "node:module"`, for the `require` of CommonJS
 * packages. Every run loads that chunk (zod's namespace uses its helpers), and
 * importing node:module loads most of Node's layer: ~20 ms of every start, measured
 * (`mopac --version` from the build: 87 → 65 ms). The one package that names
 * `require`, mvdan-sh (GopherJS), uses it only where `self` is undefined, which in
 * Deno it never is; the shell tests from the build prove the parser still works.
 * Here `require` becomes a function that throws, so any call would say so.
 *
 * Usage: deno run --allow-read=DIR --allow-write=DIR src/build/strip_require.ts DIR
 * Exits 1 when the header is not found exactly once (a Deno that bundles differently
 * must be looked at, not shipped) or when a chunk still imports node:module.
 */
const HEADER =
  /import\s*\{\s*createRequire as __deno_internal_createRequire\s*\}\s*from\s*"node:module";\s*var\s+([\w$]+)\s*=\s*__deno_internal_createRequire\(import\.meta\.url\);?/g;
const IMPORTS_MODULE = /\bfrom\s*["']node:module["']|\bimport\s*\(?\s*["']node:module["']/;

function fail(message: string): never {
  console.error(`strip_require: ${message}`);
  Deno.exit(1);
}

const dir = Deno.args[0];
if (!dir || Deno.args.length !== 1) fail("usage: strip_require.ts DIR");

let found = 0;
for (const entry of Deno.readDirSync(dir)) {
  if (!entry.isFile || !entry.name.endsWith(".js")) continue;
  const path = `${dir}/${entry.name}`;
  const text = Deno.readTextFileSync(path);
  const out = text.replace(HEADER, (_all, name: string) => {
    found++;
    return `var ${name}=(id)=>{throw new Error("require(\\""+id+"\\"): mopac's build has no require");};`;
  });
  if (IMPORTS_MODULE.test(out)) fail(`${path} still imports node:module`);
  if (out !== text) Deno.writeTextFileSync(path, out);
}
if (found !== 1) {
  fail(`expected Deno's createRequire header once in ${dir}, found it ${found} times`);
}
