/**
 * The MCP conformance suite (`npm:@modelcontextprotocol/conformance`) against mopac's
 * client, through tests/mcp/conformance_client.ts. The suite needs Node 22, which the
 * npm package `node@22` provides; both are installed once into a cache directory
 * (MOPAC_CONFORMANCE_DIR, default ~/.cache/mopac/mcp-conformance). The suite's
 * scenario servers listen on all interfaces; the preload tests/_support/mcp_loopback.mjs
 * makes them listen on 127.0.0.1 only. Skipped, saying why, only when Node 22 cannot
 * be obtained.
 */
import assert from "node:assert/strict";
import { DENO_RUN } from "../_support/deps.ts";

const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

const home = Deno.env.get("HOME") ?? "/tmp";
const dir = Deno.env.get("MOPAC_CONFORMANCE_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/mopac/mcp-conformance`;
const node = `${dir}/node_modules/node/bin/node`;
const cli = `${dir}/node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const here = (p: string) => new URL(p, import.meta.url).pathname;
const repoRoot = here("../../");

async function nodeVersion(): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(node, { args: ["--version"], stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

async function ready(): Promise<boolean> {
  if (!(await nodeVersion())?.startsWith("v22.")) return false;
  return await Deno.stat(cli).then(() => true, () => false);
}

/** Installs Node 22 and the suite when missing; returns why not when that fails. */
async function obtain(): Promise<string | undefined> {
  if (await ready()) return undefined;
  try {
    await Deno.mkdir(dir, { recursive: true });
    const out = await new Deno.Command("npm", {
      args: ["install", "--prefix", dir, "--no-audit", "--no-fund", "node@22", CONFORMANCE],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) return `npm install failed: ${new TextDecoder().decode(out.stderr).trim()}`;
  } catch (err) {
    return `npm could not run in ${dir}: ${(err as Error).message}`;
  }
  return (await ready()) ? undefined : `no Node 22 at ${node} after npm install`;
}

const missing = await obtain();
if (missing) {
  console.warn(`SKIPPED MCP conformance: Node 22 could not be obtained (${missing})`);
}

async function runScenario(scenario: string): Promise<void> {
  const outDir = await Deno.makeTempDir();
  const client = [
    Deno.execPath(),
    ...DENO_RUN,
    "-A",
    "--config",
    `${repoRoot}deno.json`,
    here("./conformance_client.ts"),
  ];
  // The suite splits the command on spaces.
  assert.ok(client.every((part) => !part.includes(" ")), "paths must not contain spaces");
  try {
    const out = await new Deno.Command(node, {
      args: [
        "--import",
        here("../_support/mcp_loopback.mjs"),
        cli,
        "client",
        "--command",
        client.join(" "),
        "--scenario",
        scenario,
        "--timeout",
        "60000",
        "-o",
        outDir,
      ],
      env: { NO_COLOR: "1", FORCE_COLOR: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.match(text, /MCP_LOOPBACK_LISTENING 127\.0\.0\.1:\d+/, "server bound to loopback");
    assert.equal(out.code, 0, text);
    assert.match(text, /OVERALL: PASSED/, text);
    assert.match(text, /Passed: (\d+)\/\1, 0 failed/, text);
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
}

for (const scenario of SCENARIOS) {
  Deno.test({
    name: `MCP conformance: ${scenario}`,
    ignore: missing !== undefined,
    fn: () => runScenario(scenario),
  });
}
