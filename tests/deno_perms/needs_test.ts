/**
 * Deno's permissions as the outer sandbox: the needs of a run, the flags that grant
 * them, and a real child Deno under narrowed flags that names exactly what is missing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  flagFor,
  type Need,
  permissionNeeds,
  preflight,
  requiredNeeds,
  sandboxFlags,
} from "../../src/deno_perms/needs.ts";
import { SandboxError } from "../../src/util/errors.ts";
import { DENO_RUN } from "../_support/deps.ts";

const PROBE = new URL("./_needs_probe.ts", import.meta.url).pathname;

Deno.test("permissionNeeds: data dir, config, workspace, provider, MCP, tools, env", () => {
  const needs = permissionNeeds({
    dataDir: "/w/.mopac",
    configFiles: ["/w/mopac.json", "/home/u/.config/mopac/mopac.json"],
    workspace: "/w",
    providerUrl: "http://litellm.internal:4000/v1",
    mcp: [
      { name: "gh", type: "stdio", command: "npx" },
      { name: "remote", type: "http", url: "https://mcp.example.com/mcp" },
      { name: "legacy", type: "sse", url: "http://127.0.0.1:9000/sse" },
    ],
    tools: ["view", "edit", "bash", "job_output", "grep"],
    envVars: ["LITELLM_KEY", "GITHUB_TOKEN"],
  });
  assert.deepEqual(sandboxFlags(needs), [
    "--allow-read=/home/u/.config/mopac/mopac.json,/w",
    "--allow-write=/w",
    "--allow-net=127.0.0.1:9000,litellm.internal:4000,mcp.example.com:443",
    "--allow-run=bash,npx",
    "--allow-env=GITHUB_TOKEN,LITELLM_KEY",
  ]);
});

Deno.test("permissionNeeds: read-only tools need no write to the workspace nor bash", () => {
  const needs = permissionNeeds({
    dataDir: "/d",
    configFiles: [],
    workspace: "/w",
    mcp: [],
    tools: ["view", "ls"],
    envVars: [],
  });
  assert.deepEqual(sandboxFlags(needs), ["--allow-read=/d,/w", "--allow-write=/d"]);
});

Deno.test("permissionNeeds: the OAuth logins folder is listed, and not required to start", () => {
  const needs = permissionNeeds({
    dataDir: "/d",
    configFiles: [],
    workspace: "/w",
    mcp: [{ name: "remote", type: "http", url: "https://mcp.example.com/mcp" }],
    tools: ["view"],
    envVars: [],
    oauthDir: "/home/u/.local/share/mopac/mcp-oauth",
  });
  assert.deepEqual(sandboxFlags(needs), [
    "--allow-read=/d,/home/u/.local/share/mopac/mcp-oauth,/w",
    "--allow-write=/d,/home/u/.local/share/mopac/mcp-oauth",
    "--allow-net=mcp.example.com:443",
  ]);
  // Without the grant only a server that needs a login fails, naming the flags.
  assert.deepEqual(sandboxFlags(requiredNeeds(needs)), [
    "--allow-read=/d,/w",
    "--allow-write=/d",
    "--allow-net=mcp.example.com:443",
  ]);
});

Deno.test("permissionNeeds: fetch needs exactly its hosts (globs as Deno takes them)", () => {
  const base = { dataDir: "/d", configFiles: [], workspace: "/w", mcp: [], envVars: [] };
  const listed = permissionNeeds({
    ...base,
    tools: ["fetch"],
    fetchHosts: ["docs.example.com", "api.example.com:8443", "docs.example.com:443"],
  });
  assert.deepEqual(sandboxFlags(listed).filter((f) => f.startsWith("--allow-net")), [
    "--allow-net=api.example.com:8443,docs.example.com",
  ]);
  const globbed = permissionNeeds({ ...base, tools: ["fetch"], fetchHosts: ["*.example.com"] });
  assert.deepEqual(sandboxFlags(globbed), [
    "--allow-read=/d,/w",
    "--allow-write=/d",
    "--allow-net=*.example.com",
  ]);
  const any = permissionNeeds({ ...base, tools: ["fetch"], providerUrl: "https://p.test" });
  assert.ok(sandboxFlags(any).includes("--allow-net"));
});

Deno.test("requiredNeeds: only the fetch tool's hosts are optional, also beside a server named fetch", () => {
  const needs = permissionNeeds({
    dataDir: "/d",
    configFiles: [],
    workspace: "/w",
    mcp: [{ name: "fetch", type: "http", url: "https://mcp.example.com/mcp" }],
    tools: ["fetch"],
    envVars: [],
    fetchHosts: ["docs.example.com"],
    hooks: true,
    smallModelUrl: "https://small.example.com/v1",
  });
  const net = (list: Need[]) => list.filter((n) => n.kind === "net").map((n) => n.why);
  assert.deepEqual(net(needs), ["fetch tool", 'MCP server "fetch"', "small model"]);
  assert.deepEqual(net(requiredNeeds(needs)), ['MCP server "fetch"', "small model"]);
  assert.ok(needs.some((n) => n.kind === "run" && n.why === "hooks.PreToolUse"));
});

Deno.test({
  name: "preflight in-process: names every missing flag",
  permissions: { read: true, write: false, env: ["MOPAC_GRANTED"], run: false, net: false },
  fn() {
    const needs: Need[] = [
      { kind: "read", path: "/tmp", why: "data dir" },
      { kind: "env", variable: "MOPAC_GRANTED", why: "config" },
      { kind: "write", path: "/tmp/x/.mopac", why: "data dir" },
      { kind: "net", host: "127.0.0.1:4000", why: "provider" },
      { kind: "run", command: "bash", why: "bash tool" },
    ];
    assert.throws(() => preflight(needs), (err: unknown) => {
      assert.ok(err instanceof SandboxError);
      assert.equal(
        err.flag,
        "--allow-write=/tmp/x/.mopac --allow-net=127.0.0.1:4000 --allow-run=bash",
      );
      assert.match(err.message, /--allow-net=127\.0\.0\.1:4000 {2}\(provider\)/);
      assert.doesNotMatch(err.message, /allow-read|allow-env/);
      return true;
    });
    preflight(needs.slice(0, 2)); // all granted: no error
  },
});

Deno.test("preflight under real narrowed flags: exact flag missing, sandboxFlags pass", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_sandbox_" }));
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })();
  try {
    const ws = join(root, "ws");
    const data = join(root, "data");
    const cfgDir = join(root, "cfg");
    for (const d of [ws, data, cfgDir]) await Deno.mkdir(d);
    await Deno.writeTextFile(join(cfgDir, "mopac.json"), "{}");
    const needs = permissionNeeds({
      dataDir: data,
      configFiles: [join(cfgDir, "mopac.json")],
      workspace: ws,
      providerUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
      mcp: [],
      tools: ["view", "write", "bash"],
      envVars: ["MOPAC_PROBE_VAR"],
    });
    const run = async (flags: string[], extra: string[] = []) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [...DENO_RUN, "--no-prompt", ...flags, PROBE, JSON.stringify(needs), ...extra],
        env: { NO_COLOR: "1", MOPAC_PROBE_VAR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    };

    const flags = sandboxFlags(needs);
    const ok = await run(flags);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), "ok");

    // Each need taken away on its own: exit 2, and the named flag is exactly the missing one.
    for (const need of needs) {
      const narrowed = sandboxFlags(needs.filter((n) => n !== need));
      const res = await run(narrowed);
      assert.equal(res.code, 2, `${flagFor(need)}: ${res.stderr}`);
      assert.equal(res.stderr.trim(), flagFor(need));
    }

    // Without preflight, the NotCapable thrown deep in the run is translated the same way.
    const noNet = sandboxFlags(needs.filter((n) => n.kind !== "net"));
    const late = await run(noNet, ["--skip-preflight"]);
    assert.equal(late.code, 2, late.stderr);
    assert.equal(late.stderr.trim(), `--allow-net=127.0.0.1:${listener.addr.port}`);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    await Deno.remove(root, { recursive: true });
  }
});
