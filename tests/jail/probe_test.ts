/** The preflight probe and survey: what works, and what each failure says. */
import assert from "node:assert/strict";
import { backendFor, probeLinux } from "../../src/jail/probe.ts";
import { JailError } from "../../src/util/errors.ts";
import { noJail, noSocat } from "../_support/jail.ts";
import { fileURLToPath } from "node:url";
import { DENO_RUN } from "../_support/deps.ts";
import { cleanDenoEnv } from "../_support/run_mopac.ts";
import { checkBackend, jailNeeds, prepareJail } from "../../src/jail/mod.ts";

Deno.test("probe: bubblewrap on Linux, sandbox-exec on macOS, none elsewhere (fail closed)", async () => {
  assert.equal(backendFor("linux"), "bwrap");
  assert.equal(backendFor("darwin"), "sandbox-exec");
  assert.equal(backendFor("windows"), undefined);
  await assert.rejects(
    checkBackend({ mode: "on", needed: true, os: "windows" }),
    (err: Error) =>
      err instanceof JailError && /no OS jail for windows/.test(err.message) &&
      /--sandbox off/.test((err as JailError).hint ?? ""),
  );
  await checkBackend({ mode: "off", needed: true, os: "windows" });
  await checkBackend({ mode: "on", needed: false, os: "windows" });
});

Deno.test("probe: the Deno flags a jail needs, per backend and network mode", () => {
  const none = { mode: "on" as const, needed: true, os: "linux" as const };
  assert.deepEqual(
    jailNeeds({ ...none, network: { mode: "none" } }).map((n) =>
      n.kind + ":" + ("command" in n ? n.command : n.host)
    ),
    ["run:bwrap"],
  );
  assert.deepEqual(jailNeeds({ ...none, network: { mode: "all" } }).length, 1);
  const hosts = jailNeeds({
    ...none,
    network: { mode: "hosts", hosts: ["Registry.npmjs.org", "127.0.0.1:4873"] },
  });
  assert.deepEqual(
    hosts.filter((n) => n.kind === "net").map((n) => (n as { host?: string }).host),
    [
      "127.0.0.1:0",
      "registry.npmjs.org",
      "127.0.0.1:4873",
    ],
  );
  const wild = jailNeeds({ ...none, network: { mode: "hosts", hosts: ["*.pypi.org"] } });
  assert.ok(
    wild.some((n) => n.kind === "net" && n.host === undefined),
    "a wildcard needs all of --allow-net",
  );
  assert.deepEqual(
    jailNeeds({ ...none, os: "darwin", network: { mode: "none" } }).map((n) =>
      (n as { command: string }).command
    ),
    ["/usr/bin/sandbox-exec"],
  );
  assert.deepEqual(jailNeeds({ ...none, mode: "off", network: { mode: "none" } }), []);
  assert.deepEqual(jailNeeds({ ...none, needed: false, network: { mode: "none" } }), []);
});

/** tests/jail/_probe_path.ts in a process of its own with this PATH (see there why). */
async function probeWithPath(
  kind: "bwrap" | "socat",
  path: string,
  flags = ["-A"],
  only: "missing" | "both" = "both",
) {
  const script = fileURLToPath(new URL("./_probe_path.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, ...flags, script, kind, only],
    clearEnv: true,
    env: { ...cleanDenoEnv(), PATH: path },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(text) as {
    missing: { error: string; message: string } | null;
    probe: { error: string; message: string; hint: string };
  };
}

Deno.test("probe: bwrap missing from PATH is named, not taken for a missing flag", async () => {
  // Narrow flags: Deno cannot resolve bwrap, so the grant reads as missing; the check
  // before the preflight names the real cause.
  const narrow = ["--allow-read", "--allow-env", "--allow-run=bwrap,bash"];
  const r = await probeWithPath("bwrap", "/nonexistent", narrow);
  assert.equal(r.missing?.error, "JailError");
  assert.match(r.missing!.message, /bubblewrap \(bwrap\) is not installed/);
  assert.equal(r.probe.error, "JailError");
  assert.match(r.probe.message, /bubblewrap \(bwrap\) is not installed/);
  // A blanket grant leaves nothing to tell apart: the probe names it.
  const all = await probeWithPath("bwrap", "/nonexistent");
  assert.equal(all.missing, null);
  assert.equal(all.probe.error, "JailError");
  assert.match(all.probe.message, /bubblewrap \(bwrap\) is not installed/);
});

Deno.test("probe: a named grant of bwrap is taken as bwrap found, with no spawn", async () => {
  // A bwrap that leaves a mark when run: Deno finds it on PATH at start, so the grant
  // holds and the check before the preflight has no reason to start it.
  const bin = await Deno.makeTempDir({ prefix: "mopac-bwrap-mark-" });
  try {
    await Deno.writeTextFile(`${bin}/bwrap`, `#!/bin/sh\ntouch '${bin}/ran'\necho bubblewrap 0\n`);
    await Deno.chmod(`${bin}/bwrap`, 0o755);
    const narrow = ["--allow-read", "--allow-env", "--allow-run=bwrap,bash"];
    const r = await probeWithPath("bwrap", `${bin}:/usr/bin:/bin`, narrow, "missing");
    assert.equal(r.missing, null);
    assert.equal(await Deno.stat(`${bin}/ran`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test({
  name: "probe: the survey reports kinds, walks deny prefixes and finds sockets in HOME",
  ignore: noJail("the survey"),
  async fn() {
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-survey-" }));
    await Deno.mkdir(`${home}/.ssh`);
    await Deno.mkdir(`${home}/.config/app`, { recursive: true });
    await Deno.mkdir(`${home}/.cache/deep`, { recursive: true });
    await Deno.writeTextFile(`${home}/.npmrc`, "x");
    await Deno.writeTextFile(`${home}/secret\nwith newline`, "x");
    await Deno.symlink(`${home}/.npmrc`, `${home}/link`);
    const agent = Deno.listen({ transport: "unix", path: `${home}/.config/app/agent.sock` });
    const cached = Deno.listen({ transport: "unix", path: `${home}/.cache/deep/skip.sock` });
    try {
      const result = await probeLinux({ mode: "none" }, {
        paths: [`${home}/.ssh`, `${home}/.npmrc`, `${home}/.aws`],
        walk: [{ dir: home, depth: 1 }],
        sockets: [{ dir: home, depth: 4 }],
      });
      const k = result.kinds;
      assert.equal(k.get(`${home}/.ssh`), "dir");
      assert.equal(k.get(`${home}/.npmrc`), "file");
      assert.equal(k.has(`${home}/.aws`), false);
      assert.equal(k.get(`${home}/secret\nwith newline`), "file");
      assert.equal(k.get(`${home}/link`), "link");
      assert.equal(k.get(`${home}/.config/app/agent.sock`), "socket");
      assert.equal(k.has(`${home}/.cache/deep/skip.sock`), false, "caches are not searched");
    } finally {
      agent.close();
      cached.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "probe: hosts mode needs socat inside the jail",
  ignore: noSocat("socat probe"),
  async fn() {
    const ok = await prepareJail({
      mode: "on",
      needed: true,
      network: { mode: "hosts", hosts: ["example.com"] },
      workspace: "/nonexistent",
      dataDir: "/nonexistent/.mopac",
      denyGlobs: [],
      denied: () => false,
      hide: [],
      log: () => {},
    });
    assert.deepEqual(ok.info, { backend: "bwrap", network: "hosts", hosts: ["example.com"] });
    await ok.launcher.dispose();

    // The same with a PATH that has bwrap and bash but no socat.
    const bin = await Deno.makeTempDir({ prefix: "mopac-bin-" });
    const which = async (c: string) =>
      new TextDecoder().decode(
        (await new Deno.Command("bash", { args: ["-c", `command -v ${c}`] }).output()).stdout,
      ).trim();
    try {
      for (const c of ["bwrap", "bash"]) await Deno.symlink(await which(c), `${bin}/${c}`);
      const { probe } = await probeWithPath("socat", bin);
      assert.equal(probe.error, "JailError");
      assert.match(probe.message, /socat is not installed/);
      assert.match(probe.hint, /apt-get install socat\); or run commands unjailed/);
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});
