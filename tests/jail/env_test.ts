/** What the jail sets in every command's environment, and in which order it wins. */
import assert from "node:assert/strict";
import { cacheEnv, proxyEnv, tmpEnv } from "../../src/jail/env.ts";
import { baseEnv, buildChildEnv, sessionExports } from "../../src/tools/shell/env.ts";

const jail = {
  defaults: cacheEnv("/data/cache"),
  forced: { ...tmpEnv("/tmp"), ...proxyEnv(3128, ["127.0.0.1:4873"]) },
};
const read = (n: string) => ({ PATH: "/usr/bin", HOME: "/home/u", TMPDIR: "/host/tmp" })[n];

Deno.test("jail env: caches before config, TMPDIR and proxy after everything", () => {
  const env = buildChildEnv({
    config: { npm_config_cache: "/operator/npm", HTTP_PROXY: "http://corp:8080" },
    session: { TMPDIR: "/model/tmp", PIP_CACHE_DIR: "/model/pip", FOO: "bar" },
    read,
    jail,
  });
  assert.equal(env.npm_config_cache, "/operator/npm", "config may move a cache");
  assert.equal(env.DENO_DIR, "/data/cache/deno");
  assert.equal(env.PIP_CACHE_DIR, "/model/pip", "an export may too: it is still inside the jail");
  assert.equal(env.TMPDIR, "/tmp", "neither config nor an export moves TMPDIR");
  assert.equal(env.HTTP_PROXY, "http://127.0.0.1:3128");
  assert.equal(env.https_proxy, "http://127.0.0.1:3128");
  assert.equal(env.NO_PROXY, "localhost,::1", "a listed loopback address goes through the proxy");
  assert.equal(env.FOO, "bar");
});

Deno.test("jail env: the jail's own variables are not remembered as the session's exports", () => {
  const base = baseEnv({ config: {}, read, jail });
  const final = { ...base, TMPDIR: "/tmp", MINE: "1" };
  assert.deepEqual(sessionExports(final, base, {}), { MINE: "1" });
});

Deno.test("jail env: without a listed loopback address every loopback name stays direct", () => {
  assert.equal(proxyEnv(3128, ["registry.npmjs.org"]).NO_PROXY, "localhost,127.0.0.1,::1");
  assert.equal(proxyEnv(3128, ["[::1]:80"]).NO_PROXY, "localhost,127.0.0.1");
});
