/**
 * No working jail where bash is offered ends the run at preflight with exit 2, a
 * message naming the cause and a hint naming both fixes; only the operator (flag,
 * MOPAC_SANDBOX, user config) can say `--sandbox off`, and then the run says so.
 * Runs where bash is not offered never look for a jail.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { noJail } from "../_support/jail.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";

/** A PATH with bash and nothing else: bwrap is "not installed". */
async function pathWithout(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "mopac-path-" });
  const bash = new TextDecoder().decode(
    (await new Deno.Command("bash", { args: ["-c", "command -v bash"] }).output()).stdout,
  ).trim();
  await Deno.symlink(bash, `${dir}/bash`);
  return { dir, path: dir };
}

/** A PATH whose `bwrap` fails the way it does where user namespaces are refused. */
async function pathRefusingUserns(): Promise<{ dir: string; path: string }> {
  const { dir } = await pathWithout();
  await Deno.writeTextFile(
    `${dir}/bwrap`,
    '#!/bin/bash\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\n' +
      'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1\n',
  );
  await Deno.chmod(`${dir}/bwrap`, 0o755);
  return { dir, path: dir };
}

function run(
  ws: Workspace,
  args: string[],
  env: Record<string, string> = {},
  extraEnv: string[] = [],
) {
  return ws.run(["run", ...args], {
    perms: { ...ws.perms, env: [...(ws.perms.env as string[]), ...extraEnv] }, // The jail is on unless a test says otherwise (the e2e support turns it off where
    // no jail works; these tests simulate that themselves).
    env: { ...FAKE_ENV, MOPAC_SANDBOX: "", ...env },
  });
}

/** Every run against the server: one bash call, then an answer. */
const bashTurns = () => (req: { messages: Array<{ role: string }> }) =>
  req.messages.at(-1)?.role === "tool"
    ? scriptText("done")
    : scriptToolCall("bash", { command: "echo unjailed-ok" });

Deno.test("jail fail-closed: bwrap not installed is exit 2 naming the cause and both fixes", async () => {
  await using ws = await workspace({ turns: bashTurns() });
  const { dir, path } = await pathWithout();
  try {
    const r = await run(ws, ["-o", "json", "hi"], { PATH: path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /OS jail, and none works here: bubblewrap \(bwrap\) is not installed/);
    assert.match(r.stderr, /hint: install bubblewrap .*--sandbox off/);
    assert.doesNotMatch(r.stderr, /--allow-run=bwrap|Stack|internal error/);
    assert.equal(JSON.parse(r.stdout).exit_code, 2);
    assert.equal(ws.fake.requests.length, 0, "nothing reached the model");

    // The operator's way out: the same run with --sandbox off works, and says so.
    const off = await run(ws, ["-o", "stream-json", "--sandbox", "off", "hi"], { PATH: path });
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stderr, /--sandbox off: the model's commands run without the OS jail/);
    const ev = events(off.stdout);
    assert.deepEqual(ev[0].sandbox, { backend: "off", network: "none" });
    const result = ev.find((e) => e.type === "tool_result") as { output: string };
    assert.match(result.output, /unjailed-ok/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jail fail-closed: user namespaces refused is exit 2 naming the sysctl fix", async () => {
  await using ws = await workspace({ turns: bashTurns() });
  const { dir, path } = await pathRefusingUserns();
  try {
    const r = await run(ws, ["hi"], { PATH: path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /bwrap cannot build a jail here: bwrap: setting up uid map/);
    assert.match(r.stderr, /kernel\.apparmor_restrict_unprivileged_userns=0/);
    assert.match(r.stderr, /--sandbox off/);
    assert.equal(ws.fake.requests.length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jail fail-closed: project config cannot turn the jail off; the operator can", async () => {
  await using ws = await workspace({ turns: bashTurns() }, { options: { sandbox: "off" } });
  const { dir, path } = await pathWithout();
  const home = await Deno.makeTempDir({ prefix: "mopac-home-" });
  try {
    const r = await run(ws, ["hi"], { PATH: path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /ignored options\.sandbox \(mopac\.json\): only the operator may set it/,
    );
    assert.match(r.stderr, /bubblewrap \(bwrap\) is not installed/);

    const byEnv = await run(ws, ["hi"], { PATH: path, MOPAC_SANDBOX: "off" }, ["MOPAC_SANDBOX"]);
    assert.equal(byEnv.code, 0, byEnv.stderr);
    assert.match(byEnv.stderr, /--sandbox off/);

    await Deno.mkdir(`${home}/mopac`);
    await Deno.writeTextFile(`${home}/mopac/mopac.json`, '{"options": {"sandbox": "off"}}');
    const byUser = await ws.run(["run", "hi"], {
      perms: {
        ...ws.perms,
        read: [...ws.perms.read!, home],
        env: [...(ws.perms.env as string[]), "XDG_CONFIG_HOME"],
      },
      env: { MOPAC_SANDBOX: "", PATH: path, XDG_CONFIG_HOME: home },
    });
    assert.equal(byUser.code, 0, byUser.stderr);
    assert.match(byUser.stderr, /--sandbox off/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("jail fail-closed: a run without bash never looks for a jail", async () => {
  await using ws = await workspace({ turns: [scriptText("done")] });
  const { dir, path } = await pathWithout();
  try {
    const r = await ws.run(["run", "--tools", "view,ls", "-o", "stream-json", "hi"], {
      perms: { ...ws.perms, run: [] },
      env: { MOPAC_SANDBOX: "", PATH: path },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(events(r.stdout)[0].sandbox, { backend: "none", network: "none" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jail fail-closed: --sandbox takes on or off only", async () => {
  await using ws = await workspace({ turns: [] });
  const r = await run(ws, ["--sandbox", "maybe", "hi"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--sandbox takes on or off, got 'maybe'/);
});

Deno.test({
  name: "jail: --dry-run, init and `sandbox --check` name the backend and the network mode",
  ignore: noJail("what the jail reports"),
  async fn() {
    await using ws = await workspace({ turns: [] }, {
      agents: {
        net: { allowed_tools: ["bash"], bash: { network: { hosts: ["registry.npmjs.org"] } } },
      },
    });
    const { dir, path } = await pathWithout();
    try {
      const dry = await run(ws, ["--dry-run", "hi"]);
      assert.equal(dry.code, 0, dry.stderr);
      const described = JSON.parse(dry.stdout);
      assert.equal(described.sandbox.backend, "bwrap");
      assert.equal(described.sandbox.network, "none");
      assert.match(described.sandbox.version, /^\d+\.\d+/);

      const check = await ws.run(["sandbox", "--check", "-a", "net"]);
      assert.equal(check.code, 0, check.stderr);
      assert.match(check.stdout, /^backend: bwrap \d+\.\d+/m);
      assert.match(check.stdout, /^probe: ok$/m);
      assert.match(check.stdout, /^network: hosts \(registry\.npmjs\.org\)$/m);

      const flags = await ws.run(["sandbox", "-a", "net"]);
      assert.equal(flags.code, 0, flags.stderr);
      assert.match(flags.stdout, /--allow-run=bash,bwrap/);
      assert.match(
        flags.stdout,
        /--allow-net=127\.0\.0\.1:0,127\.0\.0\.1:\d+,registry\.npmjs\.org/,
      );

      const broken = await ws.run(["sandbox", "--check"], { env: { PATH: path } });
      assert.equal(broken.code, 2);
      assert.match(broken.stdout, /^probe: failed$/m);
      assert.match(broken.stdout, /^cause: .*bubblewrap \(bwrap\) is not installed/m);
      assert.match(broken.stdout, /^fix: install bubblewrap.*--sandbox off/m);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("jail fail-closed: a bubblewrap too old for --disable-userns is named", async () => {
  await using ws = await workspace({ turns: bashTurns() });
  const { dir, path } = await pathWithout();
  try {
    await Deno.writeTextFile(
      `${dir}/bwrap`,
      '#!/bin/bash\n[ "$1" = --version ] && { echo "bubblewrap 0.6.1"; exit 0; }\n' +
        'echo "bwrap: Unknown option --disable-userns" >&2; exit 1\n',
    );
    await Deno.chmod(`${dir}/bwrap`, 0o755);
    const r = await run(ws, ["hi"], { PATH: path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /bubblewrap 0\.8 or newer/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
