/**
 * `mopac doctor` end to end under narrow Deno flags: everything working is exit 0; a
 * provider that is down or refuses the key is exit 5, a failing MCP server exit 6,
 * missing Deno permissions exit 2, each with what to fix.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { workspace } from "../_support/workspace.ts";
import { DENO } from "./_mcp_run.ts";

interface Check {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
  code?: number;
}

const checksOf = (stdout: string) => JSON.parse(stdout) as { ok: boolean; checks: Check[] };
const byName = (checks: Check[], name: string) => checks.find((c) => c.check === name)!;

Deno.test("e2e doctor: all is well (provider listed, MCP server pinged) is exit 0", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] }, {
    mcp: { fx: fixtureStdio() },
  });
  ws.perms.run!.push(DENO);
  const r = await ws.run(["doctor"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok {4}deno: Deno \d+\.\d+\.\d+$/m);
  assert.match(r.stdout, /^ok {4}permissions: /m);
  assert.match(r.stdout, /^ok {4}jail: /m);
  assert.match(
    r.stdout,
    /^ok {4}provider fake: http:\/\/127\.0\.0\.1:\d+\/v1 answers, 1 model\(s\); key from \$FAKE_API_KEY \(providers\.fake\.api_key\)$/m,
  );
  assert.match(r.stdout, /^ok {4}mcp fx: connected, \d+ tool\(s\), answers a ping$/m);
  assert.match(r.stdout, /everything works\n$/);
  // A models list, never a chat request.
  assert.deepEqual(ws.fake.requests.map((q) => `${q.method} ${q.path}`), ["GET /v1/models"]);
  assert.equal(ws.fake.requests[0].headers.authorization, "Bearer sk-fake-secret-123456");
});

Deno.test("e2e doctor: a refused key and a provider that is down are exit 5 with a fix", async () => {
  await using ws = await workspace({ turns: [], apiKey: "another-key" });
  const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
  config.providers.down = {
    type: "openai-compat",
    base_url: "http://127.0.0.1:9/v1",
    api_key: "x",
  };
  await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
  const r = await ws.run(["doctor", "--json"], {
    perms: { ...ws.perms, net: ["127.0.0.1"] },
  });
  assert.equal(r.code, 5, r.stdout + r.stderr);
  const { ok, checks } = checksOf(r.stdout);
  assert.equal(ok, false);
  const fake = byName(checks, "provider fake");
  assert.equal(fake.ok, false);
  assert.match(fake.detail, /HTTP 401: the key from \$FAKE_API_KEY .* was refused/);
  assert.equal(fake.code, 5);
  const down = byName(checks, "provider down");
  assert.equal(down.ok, false);
  assert.match(down.fix!, /check providers\.down\.base_url/);
});

Deno.test("e2e doctor: a failing MCP server is exit 6; missing permissions exit 2, naming the flag", async () => {
  await using ws = await workspace({ turns: [] }, {
    mcp: { broken: { type: "stdio", command: "bash", args: ["-c", "echo no >&2; exit 3"] } },
  });
  let r = await ws.run(["doctor", "--json"]);
  assert.equal(r.code, 6, r.stdout + r.stderr);
  const broken = byName(checksOf(r.stdout).checks, "mcp broken");
  assert.equal(broken.ok, false);
  assert.match(broken.fix!, /mcp-broken\.log/);

  // Without the provider's host in --allow-net, the run's permissions fail first.
  r = await ws.run(["doctor"], { perms: { ...ws.perms, net: [] } });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stdout, /^FAIL {2}permissions: Deno does not grant what this run needs/m);
  assert.match(r.stdout, /fix: add --allow-net=127\.0\.0\.1:\d+/);
  assert.match(r.stdout, /\d+ problem\(s\) found\n$/);
});

Deno.test("e2e doctor: a bad flag or a prompt is exit 2", async () => {
  await using ws = await workspace({ turns: [] });
  let r = await ws.run(["doctor", "fix", "it"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /doctor takes no prompt/);
  r = await ws.run(["doctor", "-c", "limits.max_turns=x"]);
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stdout, /^FAIL {2}config: -c limits\.max_turns: /m);
});
