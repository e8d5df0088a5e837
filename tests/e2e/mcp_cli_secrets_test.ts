/**
 * `mopac mcp list|tools|call` start servers exactly as a run does: the stderr log is
 * redacted, `options.mcp_roots` is advertised, and what a tool prints is redacted
 * before it reaches stdout.
 */
import assert from "node:assert/strict";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV } from "../_support/workspace.ts";
import { mcpWorkspace } from "./_mcp_run.ts";

const SECRET = "srv-secret-Qw12Er34Ty56";

Deno.test("e2e mcp CLI: logs and output redacted, roots from options.mcp_roots", async () => {
  const ws = await mcpWorkspace([], {
    fx: {
      ...fixtureStdio({}, ["--stderr", "booting with $SERVER_SECRET", "--env-tool", "TOKEN"]),
      env: { TOKEN: "$SERVER_SECRET" },
    },
  }, { config: { options: { mcp_roots: ["src"] } } });
  try {
    await Deno.mkdir(`${ws.dir}/src`);
    const env = { ...FAKE_ENV, SERVER_SECRET: SECRET };
    const perms = { ...ws.perms, env: [...(ws.perms.env as string[]), "SERVER_SECRET"] };
    const mcp = (...args: string[]) => runMopac(["mcp", ...args], { cwd: ws.dir, perms, env });

    const listed = await mcp("list");
    assert.equal(listed.code, 0, listed.stderr);
    const called = await mcp("call", "fx", "env");
    assert.equal(called.code, 0, called.stderr);
    assert.equal(called.stdout, "TOKEN=[REDACTED]\n");
    const roots = await mcp("call", "fx", "roots");
    assert.equal(roots.code, 0, roots.stderr);
    assert.match(roots.stdout, new RegExp(`file://${ws.dir}/src`));

    const logs = [...Deno.readDirSync(`${ws.dir}/.mopac/logs`)].map((e) => e.name);
    assert.ok(logs.length > 0);
    for (const name of logs) {
      const text = await Deno.readTextFile(`${ws.dir}/.mopac/logs/${name}`);
      assert.ok(!text.includes(SECRET), `${name} holds the secret`);
      assert.match(text, /booting with \[REDACTED\]/);
    }
    for (const out of [listed, called, roots]) {
      assert.ok(!out.stdout.includes(SECRET) && !out.stderr.includes(SECRET));
    }
  } finally {
    await ws.close();
  }
});
