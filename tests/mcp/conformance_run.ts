/**
 * Runs client scenarios of the MCP conformance suite against mopac's CLI (through
 * tests/mcp/conformance_client.ts). The suite's scenario servers listen on all
 * interfaces; the preload tests/_support/mcp_loopback.mjs makes them listen on
 * 127.0.0.1 only. Each conformance_<share>_test.ts registers one share of the 26
 * scenarios, so that `deno test --parallel` runs the shares side by side.
 */
import assert from "node:assert/strict";
import { obtainConformance } from "./conformance_install.ts";
import { DENO_RUN } from "../_support/deps.ts";

const here = (p: string) => new URL(p, import.meta.url).pathname;
const repoRoot = here("../../");

/** The client scenarios of conformance 0.1.16, in the shares that run side by side. */
export const SHARES = {
  basics: ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"],
  discovery: [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
  ],
  scopes: [
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
  ],
  clients: [
    "auth/basic-cimd",
    "auth/pre-registration",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
  ],
};

const suite = await obtainConformance();
if (typeof suite === "string") {
  console.warn(`SKIPPED MCP conformance: Node 22 and the suite could not be obtained (${suite})`);
}

/** One scenario through the suite's own runner; fails with the suite's report. */
export async function runScenario(scenario: string): Promise<void> {
  if (typeof suite === "string") throw new Error(suite);
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
    const out = await new Deno.Command(suite.node, {
      args: [
        "--import",
        here("../_support/mcp_loopback.mjs"),
        suite.cli,
        "client",
        "--command",
        client.join(" "),
        "--scenario",
        scenario,
        // Generous: a login, a tool listing and a run are three mopac processes.
        "--timeout",
        "240000",
        "-o",
        outDir,
      ],
      // This process warmed the cache (deps.ts) already: the client need not again.
      env: { NO_COLOR: "1", FORCE_COLOR: "0", MOPAC_TEST_DEPS_WARM: "1" },
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

/** The client scenarios the installed suite lists (`conformance list`). */
export async function listedClientScenarios(): Promise<string[]> {
  if (typeof suite === "string") throw new Error(suite);
  const out = await new Deno.Command(suite.node, {
    args: [suite.cli, "list"],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const clients = text.split(/Client scenarios[^\n]*\n/)[1] ?? "";
  return [...clients.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

export const suiteMissing = typeof suite === "string";

/** Registers one share's scenarios as tests. */
export function registerScenarios(share: keyof typeof SHARES): void {
  for (const scenario of SHARES[share]) {
    Deno.test({
      name: `MCP conformance: ${scenario}`,
      ignore: typeof suite === "string",
      fn: () => runScenario(scenario),
    });
  }
}
