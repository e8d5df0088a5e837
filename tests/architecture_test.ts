/**
 * The layers of DESIGN §7 point one way. This test reads every import in src/ and
 * fails on an edge the table below does not allow, so a shortcut upward (a tool
 * importing the app, the loop importing the CLI) cannot slip in.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** Folder → the folders it may import from (besides itself). */
const ALLOWED: Record<string, string[]> = {
  cli: [
    "domain",
    "app",
    "agent",
    "provider",
    "tools",
    "mcp",
    "session",
    "permission",
    "config",
    "catalog",
    "secrets",
    "deno_perms",
    "util",
  ],
  app: [
    "domain",
    "agent",
    "provider",
    "tools",
    "mcp",
    "session",
    "permission",
    "config",
    "catalog",
    "secrets",
    "deno_perms",
    "util",
  ],
  agent: ["domain", "provider", "tools", "mcp", "session", "permission", "catalog", "util"],
  // Types only below this line where a sibling's data shape is shared.
  mcp: ["domain", "tools", "provider", "permission", "util"],
  session: ["domain", "provider", "tools", "permission", "util"],
  tools: ["domain", "provider", "permission", "deno_perms", "util"],
  provider: ["catalog", "domain", "secrets", "util"],
  permission: ["domain", "util"],
  secrets: ["config", "catalog", "util"],
  catalog: ["config", "domain", "util"],
  deno_perms: ["domain", "util"],
  config: ["domain", "util"],
  domain: [],
  util: [],
};

function* files(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

Deno.test("imports in src/ follow the one-way layers", () => {
  const violations: string[] = [];
  for (const file of files(SRC)) {
    const rel = file.slice(SRC.length);
    const layer = rel.split("/")[0];
    const text = Deno.readTextFileSync(file);
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
      const target = new URL(m[1], `file://${file}`).pathname;
      if (!target.startsWith(SRC)) continue; // deno.json and catalog.json are data
      const to = target.slice(SRC.length).split("/")[0];
      if (to !== layer && !(ALLOWED[layer] ?? []).includes(to)) {
        violations.push(`${rel} imports ${to}/ (${m[1]})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("every folder of src/ has a place in the layer table", () => {
  const folders = [...Deno.readDirSync(SRC)].filter((e) => e.isDirectory).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => !(f in ALLOWED)), []);
});
