/**
 * `deno task install` puts a working `mopac` on PATH from a clone: the installed
 * command carries the project's import map and lock file (without them it fails at
 * the first bare import, `Import "zod" not a dependency`). Installed into a temp root,
 * it prints its version and answers a run against the fake server.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { scriptText } from "../_support/fake_openai.ts";
import { cleanDenoEnv, REPO } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";
import { shippedV8Flags } from "../_support/bundle.ts";

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Installing may reach the npm registry (Deno fetches package metadata the lock file
 * does not hold), so the variables that say how to reach it pass through: proxies and
 * certificate stores. Nothing else of the runner's environment does.
 */
function registryEnv(): Record<string, string> {
  const names = [
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "DENO_CERT",
    "DENO_TLS_CA_STORE",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "NPM_CONFIG_REGISTRY",
  ];
  return Object.fromEntries(
    names.flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

Deno.test("deno task install: the installed mopac runs --version and a run from any folder", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-install-" }));
  await using ws = await workspace({ turns: [scriptText("installed and answering")] });
  // The installed command is a shell script that starts `deno` from PATH.
  const env = {
    ...cleanDenoEnv(),
    ...registryEnv(),
    PATH: `${root}/bin:${dirname(Deno.execPath())}:${cleanDenoEnv().PATH}`,
  };
  try {
    const install = await new Deno.Command(Deno.execPath(), {
      args: ["task", "install"],
      cwd: REPO,
      clearEnv: true,
      env: { ...env, DENO_INSTALL_ROOT: root },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(install.code, 0, decode(install.stderr));
    // It starts Deno with the V8 flags every shipped form carries.
    assert.ok((await Deno.readTextFile(`${root}/bin/mopac`)).includes(await shippedV8Flags()));

    const version = await new Deno.Command("mopac", {
      args: ["--version"],
      cwd: ws.dir,
      clearEnv: true,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(version.code, 0, decode(version.stderr));
    assert.match(decode(version.stdout), /^mopac \d+\.\d+\.\d+ \(commit \w+\)\ndeno \d/);

    const run = await new Deno.Command("mopac", {
      args: ["run", "-o", "json", "say hi"],
      cwd: ws.dir,
      clearEnv: true,
      env: { ...env, ...FAKE_ENV },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, decode(run.stdout) + decode(run.stderr));
    const result = JSON.parse(decode(run.stdout));
    assert.equal(result.type, "result");
    assert.equal(result.result, "installed and answering");
    assert.equal(ws.fake.turnRequests().length, 1);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
