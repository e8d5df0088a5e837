/**
 * `options.sandbox` is the operator's: a project file (in the repository or its
 * data dir) that sets it is ignored with a note; flags, MOPAC_SANDBOX, --config and
 * user or system config set it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeSandbox } from "./_helpers.ts";
import { OPERATOR_ONLY_REASON } from "../../src/config/trust.ts";

const off = '{ "options": { "sandbox": "off" } }';

Deno.test("options.sandbox in project files is dropped with a note; operator layers keep it", async () => {
  const sb = await makeSandbox();
  try {
    const project = await sb.write(join(sb.repo, "mopac.json"), off);
    const dataFile = await sb.write(join(sb.repo, ".mopac", "mopac.json"), off);
    // Even from a trusted project (the helper trusts it), and of course from an untrusted one.
    for (const trustProject of [true, false]) {
      const loaded = await sb.load({ cwd: sb.repo, trustProject });
      assert.equal(loaded.config.options?.sandbox, undefined);
      assert.deepEqual(loaded.project.ignored.map((i) => [i.file, i.key, i.reason]), [
        [project, "options.sandbox", OPERATOR_ONLY_REASON],
        [dataFile, "options.sandbox", OPERATOR_ONLY_REASON],
      ]);
    }
    let loaded;

    await sb.write(join(sb.xdgConfig, "mopac", "mopac.json"), off);
    loaded = await sb.load({ cwd: sb.repo });
    assert.equal(loaded.config.options?.sandbox, "off", "user config is the operator's");

    await Deno.remove(join(sb.xdgConfig, "mopac", "mopac.json"));
    sb.env.MOPAC_SANDBOX = "off";
    loaded = await sb.load({ cwd: sb.repo });
    assert.equal(loaded.config.options?.sandbox, "off");
    assert.equal(loaded.sourceOf("options.sandbox"), "env MOPAC_SANDBOX");

    delete sb.env.MOPAC_SANDBOX;
    const explicit = await sb.write(join(sb.root, "ci.json"), off);
    loaded = await sb.load({ cwd: sb.repo, configFile: explicit });
    assert.equal(loaded.config.options?.sandbox, "off");

    loaded = await sb.load({ cwd: sb.repo, flags: { options: { sandbox: "on" } } });
    assert.equal(loaded.config.options?.sandbox, "on");
    assert.equal(loaded.sourceOf("options.sandbox"), "command line");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("options.sandbox takes on or off; bash.network none, all or hosts", async () => {
  const sb = await makeSandbox();
  try {
    await sb.write(join(sb.root, "bad.json"), '{ "options": { "sandbox": "maybe" } }');
    await assert.rejects(
      sb.load({ cwd: sb.repo, configFile: join(sb.root, "bad.json") }),
      /sandbox/,
    );
    await sb.write(
      join(sb.repo, "mopac.json"),
      JSON.stringify({
        agents: {
          a: { bash: { network: "all" } },
          b: { bash: { network: { hosts: ["registry.npmjs.org", "*.pypi.org"] } } },
        },
      }),
    );
    const loaded = await sb.load({ cwd: sb.repo });
    assert.equal(loaded.config.agents?.a?.bash?.network, "all");
    await sb.write(
      join(sb.repo, "mopac.json"),
      '{ "agents": { "a": { "bash": { "network": "some" } } } }',
    );
    await assert.rejects(sb.load({ cwd: sb.repo }), /network/);
  } finally {
    await sb.cleanup();
  }
});
