/**
 * `bash.network: {hosts: [...]}`: jailed commands reach the listed hosts through
 * mopac's proxy (socat bridges it into the jail) and nothing else. A local server
 * stands in for a registry; another port on the same host must stay unreachable,
 * also when a command bypasses the proxy variables.
 */
import assert from "node:assert/strict";
import { noSocat } from "../_support/jail.ts";
import { type BashCall, runCalls, turnsFor, workspace } from "./_jail.ts";

function serve(body: string): { port: number; hits: string[]; close: () => Promise<void> } {
  const hits: string[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      hits.push(new URL(req.url).pathname);
      return new Response(body);
    },
  );
  return {
    port: server.addr.port,
    hits,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

Deno.test({
  name: "jail hosts: a listed host answers through the proxy, another port is refused",
  ignore: noSocat("bash.network.hosts through the proxy"),
  async fn() {
    const registry = serve("registry says hi");
    const other = serve("must not be reached");
    const allowed = `127.0.0.1:${registry.port}`;
    const calls: BashCall[] = [
      { name: "env", command: "echo $HTTP_PROXY; echo $NO_PROXY" },
      { name: "copy", command: 'cp "$(command -v curl)" ./c && echo copied' },
      { name: "allowed", command: `./c -sS -m 10 http://${allowed}/pkg` },
      { name: "tunnel", command: `./c -sS -m 10 -p http://${allowed}/tunnel` },
      {
        name: "other-port",
        command: `./c -sS -m 10 -w ' %{http_code}' http://127.0.0.1:${other.port}/x`,
      },
      { name: "other-host", command: "./c -sS -m 10 -w ' %{http_code}' http://example.com/" },
      {
        name: "bypass",
        command: `./c -sS -m 5 --noproxy '*' http://${allowed}/direct; echo rc=$?`,
      },
      {
        name: "python",
        command:
          `python3 -c "import urllib.request as u; print(u.urlopen('http://${allowed}/py', timeout=10).read().decode())" ` +
          "2>&1 || echo no-python",
      },
    ];
    await using ws = await workspace({ turns: turnsFor(calls) }, {
      agents: { coder: { bash: { network: { hosts: [allowed] } } } },
    });
    try {
      const r = await runCalls(ws, calls, {
        net: [allowed, "127.0.0.1:0"],
      });
      assert.equal(r.code, 0, r.stderr);
      const init = r.ev[0] as { sandbox?: { backend: string; network: string; hosts?: string[] } };
      assert.deepEqual(init.sandbox, { backend: "bwrap", network: "hosts", hosts: [allowed] });
      const out = (name: string) => r.results.get(name)?.output ?? "";
      assert.match(out("env"), /^http:\/\/127\.0\.0\.1:\d+\nlocalhost,::1/);
      assert.equal(out("allowed").trim(), "registry says hi");
      assert.equal(out("tunnel").trim(), "registry says hi");
      assert.match(out("other-port"), /not in bash\.network\.hosts\n 403/);
      assert.match(out("other-host"), /not in bash\.network\.hosts\n 403/);
      assert.match(out("bypass"), /rc=(?!0)/);
      if (!out("python").includes("no-python")) assert.match(out("python"), /registry says hi/);
      assert.deepEqual(other.hits, []);
      assert.ok(registry.hits.includes("/pkg") && registry.hits.includes("/tunnel"));
      assert.ok(!registry.hits.includes("/direct"));
      assert.match(
        r.stderr,
        /jail proxy: refused 127\.0\.0\.1:\d+ \(not in bash\.network\.hosts\)/,
      );
    } finally {
      await registry.close();
      await other.close();
    }
  },
});
