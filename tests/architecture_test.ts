/**
 * The layers of DESIGN §7 point one way. This test reads every import in src/ and
 * fails on an edge the table below does not allow (a tool importing the app, the
 * loop importing the CLI), on an edge the table allows for types only that is not
 * written `import type` (so it is erased and cannot load the module), on a table
 * that is not one-way itself, and on any import cycle between files, type-only
 * imports included. That an import used only for types is written `import type`
 * everywhere else is `deno lint`'s verbatim-module-syntax rule.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { dirname, join, relative, resolve } from "node:path";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * Folder → the folders it may import from (besides itself), top layer first.
 * `name:type` allows type imports only: the loop is handed its provider, store and
 * gate and never builds one; MCP tools implement the tool contract; the catalog and
 * the redactor read the shape of config, the provider the shape of a resolved model.
 */
const LAYERS: Record<string, string[]> = {
  cli: [
    "app",
    "agent",
    "jail",
    "provider",
    "mcp",
    "session",
    "catalog",
    "config",
    "secrets",
    "deno_perms",
    "domain",
    "util",
  ],
  app: [
    "agent",
    "provider",
    "tools",
    "mcp",
    "session",
    "permission",
    "catalog",
    "config",
    "secrets",
    "deno_perms",
    "jail",
    "domain",
    "util",
  ],
  agent: ["tools", "provider:type", "session:type", "permission:type", "domain", "util"],
  mcp: ["tools:type", "domain", "util"],
  tools: ["permission", "deno_perms", "jail", "domain", "util"],
  // The OS jail of the model's processes: below the tools that start them.
  jail: ["util"],
  session: ["domain", "util"],
  provider: ["catalog:type", "secrets", "domain", "util"],
  secrets: ["catalog:type", "config:type", "util"],
  permission: ["domain", "util"],
  catalog: ["config:type", "domain", "util"],
  deno_perms: ["domain", "util"],
  config: ["domain", "util"],
  domain: [],
  util: [],
  // Steps of deno.json's tasks (the build), run by Deno, never imported by mopac.
  build: [],
};

interface Edge {
  from: string;
  to: string;
  specifier: string;
  typeOnly: boolean;
}

/** Relative imports and re-exports of one file: static, dynamic and `import("…")` types. */
function importsOf(file: string, text: string): Edge[] {
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const to = resolve(dirname(file), specifier);
    if (to.startsWith(SRC)) edges.push({ from: file, to, specifier, typeOnly });
  };
  const statement = /^(import|export)(\s+type)?\s+([^;]*?)\s*from\s*"(\.[^"]+)";/gms;
  for (const m of text.matchAll(statement)) {
    const names = /^\{([^}]*)\}$/.exec(m[3].trim())?.[1].split(",").map((s) => s.trim())
      .filter((s) => s !== "");
    const allTyped = names !== undefined && names.every((n) => n.startsWith("type "));
    add(m[4], m[2] !== undefined || allTyped);
  }
  for (const m of text.matchAll(/^import\s+"(\.[^"]+)";/gm)) add(m[1], false);
  for (const m of text.matchAll(/(typeof\s+)?\bimport\(\s*"(\.[^"]+)"\s*\)/g)) {
    add(m[2], m[1] !== undefined);
  }
  return edges;
}

function* files(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

const folderOf = (path: string) => relative(SRC, path).split("/")[0];
const EDGES = [...files(SRC)].flatMap((f) => importsOf(f, Deno.readTextFileSync(f)));

Deno.test("imports in src/ follow the one-way layers; type-only edges use import type", () => {
  assert.ok(EDGES.length > 300, `only ${EDGES.length} imports found: is the parser broken?`);
  const violations: string[] = [];
  for (const e of EDGES) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === to) continue;
    const allowed = LAYERS[from] ?? [];
    const where = `${relative(SRC, e.from)} imports ${to}/ (${e.specifier})`;
    if (allowed.includes(to)) continue;
    if (!allowed.includes(`${to}:type`)) violations.push(where);
    else if (!e.typeOnly) violations.push(`${where}: allowed for types only; write import type`);
  }
  assert.deepEqual(violations, []);
});

Deno.test("the layer table is one-way: no folder reaches back to one above it", () => {
  const targets = (f: string) => (LAYERS[f] ?? []).map((t) => t.split(":")[0]);
  const order = Object.keys(LAYERS);
  const upward = order.flatMap((f, i) =>
    targets(f).filter((t) => order.indexOf(t) <= i).map((t) => `${f} -> ${t}`)
  );
  assert.deepEqual(upward, []);
});

Deno.test("every folder of src/ has a place in the layer table", () => {
  const folders = [...Deno.readDirSync(SRC)].filter((e) => e.isDirectory).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => !(f in LAYERS)), []);
  assert.deepEqual(Object.keys(LAYERS).filter((f) => !folders.includes(f)), []);
});

Deno.test("no import cycles between files of src/, type-only imports included", () => {
  const graph = new Map<string, string[]>();
  for (const e of EDGES) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components: every component of more than one file is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(SRC, w));
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});
