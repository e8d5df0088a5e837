/**
 * The session's jail through the bash tool's launcher, with real bubblewrap: one
 * jail for every command (shared /tmp and processes), output and exit codes as a
 * direct child gives them, group signals, a jail that ends is started again on
 * the next command, and dispose leaves nothing running.
 */
import assert from "node:assert/strict";
import { JailLauncher } from "../../src/jail/launcher.ts";
import { ShellProcess } from "../../src/tools/shell/process.ts";
import { noJail } from "../_support/jail.ts";

async function setup() {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-launcher-" }));
  const log: string[] = [];
  const launcher = new JailLauncher({
    backend: "bwrap",
    plan: {
      workspace: ws,
      denyGlobs: [],
      denied: () => false,
      dataDir: `${ws}/.mopac`,
      hide: [],
      network: { mode: "none" },
    },
    log: (l) => log.push(l),
  });
  const run = async (command: string, timeoutMs = 20_000) => {
    const p = new ShellProcess({
      command,
      cwd: ws,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...launcher.env.forced },
      timeoutMs,
      launcher,
    });
    await p.finished;
    return p;
  };
  return {
    ws,
    log,
    launcher,
    run,
    close: async () => {
      await launcher.dispose();
      await Deno.remove(ws, { recursive: true });
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
}

Deno.test({
  name: "launcher: output, exit codes, state and one shared jail across commands",
  ignore: noJail("the session jail"),
  async fn() {
    await using t = await setup();
    const first = await t.run(
      "echo out; echo err >&2; printf '\\0bin\\377'; cd sub 2>/dev/null || mkdir sub; cd sub; export KEEP=1; exit 3",
    );
    assert.equal(first.exit?.code, 3);
    assert.match(first.output.text(), /^out\nerr\n\0bin/);
    assert.equal(first.state?.cwd, `${t.ws}/sub`);
    assert.equal(first.state?.env.KEEP, "1");
    const a = await t.run("echo $$ > /tmp/pid; echo pid1=$(cat /proc/1/comm)");
    assert.match(a.output.text(), /pid1=bwrap/);
    const b = await t.run("cat /tmp/pid && ls /proc | grep -c '^[0-9]'");
    assert.match(b.output.text(), /^\d+\n\d+\n$/, "the second command sees the first one's /tmp");
    assert.equal(b.exit?.code, 0);
  },
});

/** `pid pgid sid` of the bash that ran the command, as ps sees them. */
const IDS = "ps -o pid=,pgid=,sid= -p $$";

function leadsOwnGroup(text: string): boolean {
  const [pid, pgid, sid] = text.trim().split(/\s+/);
  return pid !== undefined && pid === pgid && pid === sid;
}

Deno.test({
  name: "launcher: bash leads its own process group and session, jailed and direct",
  ignore: noJail("the session jail"),
  async fn() {
    const t = await setup();
    try {
      const jailed = await t.run(IDS);
      assert.ok(leadsOwnGroup(jailed.output.text()), jailed.output.text());
    } finally {
      await t.close();
    }
    // Direct (no launcher): through setsid when it may run, `detached` otherwise.
    const direct = new ShellProcess({ command: IDS, cwd: "/", env: { PATH: "/usr/bin:/bin" } });
    await direct.finished;
    assert.ok(leadsOwnGroup(direct.output.text()), direct.output.text());
  },
});

Deno.test({
  name: "launcher: a stop right after the start reaches the command, jailed and direct",
  ignore: noJail("the session jail"),
  async fn() {
    await using t = await setup();
    await t.run("true"); // the jail is up: the stop below races only the command's start
    for (const launcher of [t.launcher, undefined]) {
      const p = new ShellProcess({
        command: "sleep 30",
        cwd: launcher ? t.ws : "/",
        env: { PATH: "/usr/bin:/bin", ...(launcher?.env.forced ?? {}) },
        launcher,
        killGraceMs: 10_000,
      });
      const exit = await p.stop("aborted");
      assert.equal(exit.signal, "SIGTERM", `${launcher ? "jailed" : "direct"}: ${exit.signal}`);
    }
  },
});

Deno.test({
  name: "launcher: timeouts signal the whole group inside the jail",
  ignore: noJail("signals in the jail"),
  async fn() {
    await using t = await setup();
    const p = await t.run("trap '' TERM; sleep 30 & sleep 30; echo never", 500);
    assert.equal(p.stoppedBy, "timeout");
    assert.notEqual(p.exit?.code, 0);
    const left = await t.run("ps -eo args | grep -c '^sleep 30' || true");
    assert.equal(left.output.text().trim(), "0", "no sleeper left in the jail");
  },
});

Deno.test({
  name: "launcher: a jail that ended is started again, and says so",
  ignore: noJail("jail restart"),
  async fn() {
    await using t = await setup();
    await t.run("echo keep > /tmp/x");
    const killed = await t.run("kill -9 $PPID; sleep 10");
    assert.match(killed.output.text(), /the jail ended/);
    const again = await t.run("cat /tmp/x 2>&1 || echo fresh-tmp");
    assert.match(again.output.text(), /fresh-tmp/);
    assert.match(t.log.join("\n"), /the jail ended .*starting a new one/);
  },
});

Deno.test({
  name: "launcher: after dispose nothing of the jail runs and no command starts",
  ignore: noJail("jail dispose"),
  async fn() {
    const t = await setup();
    const marker = `mopac-dispose-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const bg = new ShellProcess({
        command: `exec -a ${marker} sleep 300`,
        cwd: t.ws,
        env: { PATH: "/usr/bin:/bin" },
        launcher: t.launcher,
      });
      const ps = async () =>
        new TextDecoder().decode(
          (await new Deno.Command("ps", { args: ["-eo", "args"] }).output()).stdout,
        )
          .split("\n").filter((l) => l.startsWith(marker));
      for (let i = 0; i < 200 && (await ps()).length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal((await ps()).length, 1);
      await t.launcher.dispose();
      await bg.finished;
      assert.deepEqual(await ps(), []);
      const late = await t.run("echo too late");
      assert.equal(late.exit?.code, 126);
      assert.match(late.output.text(), /the run is ending/);
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "launcher: a folder missing inside the jail is reported as such, not run elsewhere",
  ignore: noJail("missing folder in the jail"),
  async fn() {
    await using t = await setup();
    const p = new ShellProcess({
      command: "echo ran",
      cwd: "/tmp/not-there",
      env: { PATH: "/usr/bin:/bin" },
      launcher: t.launcher,
    });
    await p.finished;
    assert.equal(p.missingCwd, true);
    assert.equal(p.exit?.code, 126);
    assert.doesNotMatch(p.output.text(), /ran/);
  },
});

Deno.test({
  name: "launcher: commands that arrive together share one jail start",
  ignore: noJail("concurrent first commands"),
  async fn() {
    await using t = await setup();
    const outs = await Promise.all(
      [1, 2, 3].map(() => t.run("cat /proc/1/stat | cut -d' ' -f22")),
    );
    const starts = new Set(outs.map((p) => p.output.text().trim()));
    assert.equal(starts.size, 1, "one jail (one init) for all three");
  },
});

/**
 * The jails of the workspace `ws` this test process has running: its bwrap children
 * that mount `ws`. (`deno test --parallel` runs other test files in this same process,
 * and their jails are its children too.)
 */
async function ownJails(ws: string): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-ww", "-o", "args=", "--ppid", String(Deno.pid)],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => /^\S*bwrap /.test(l) && l.split(" ").includes(ws)).length;
}

Deno.test({
  name: "launcher: prepare starts the jail without a command, resolves once its process runs, " +
    "and the next command uses it",
  ignore: noJail("the session jail"),
  async fn() {
    const t = await setup();
    try {
      assert.equal(await ownJails(t.ws), 0);
      const first = t.launcher.prepare();
      // A second call while it starts (the gate after the warm-up) starts no other jail and
      // waits for the same start: the same promise.
      const second = t.launcher.prepare();
      assert.equal(second, first);
      await second;
      assert.equal(
        await ownJails(t.ws),
        1,
        "the jail runs when prepare resolves, before any command",
      );
      const p = await t.run("echo in-jail; cat /proc/1/comm");
      assert.equal(p.output.text(), "in-jail\nbwrap\n");
      assert.equal(await ownJails(t.ws), 1, "the command ran in the prepared jail");
    } finally {
      await t.close();
    }
    assert.equal(await ownJails(t.ws), 0);
    await t.launcher.prepare(); // after dispose: nothing starts
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await ownJails(t.ws), 0);
  },
});

Deno.test({
  name: "launcher: in a git worktree, commits work and the repository's hooks stay read-only",
  ignore: noJail("git worktrees in the jail"),
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-wt-" }));
    const git = (args: string[], cwd: string) =>
      new Deno.Command("git", {
        args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
        cwd,
        stdout: "null",
        stderr: "null",
      }).output();
    await Deno.mkdir(`${root}/repo`);
    await git(["init", "-q"], `${root}/repo`);
    await Deno.writeTextFile(`${root}/repo/a.txt`, "a\n");
    await git(["add", "-A"], `${root}/repo`);
    await git(["commit", "-qm", "first"], `${root}/repo`);
    await git(["worktree", "add", "-q", `${root}/wt`], `${root}/repo`);
    const launcher = new JailLauncher({
      backend: "bwrap",
      plan: {
        workspace: `${root}/wt`,
        denyGlobs: [],
        denied: () => false,
        dataDir: `${root}/wt/.mopac`,
        hide: [],
        network: { mode: "none" },
      },
      log: () => {},
    });
    try {
      const p = new ShellProcess({
        command: "echo b > b.txt && git add b.txt && " +
          "git -c user.name=t -c user.email=t@example.com commit -qm second && git log --oneline | wc -l; " +
          `echo x > ${root}/repo/.git/hooks/post-checkout; echo rc=$?`,
        cwd: `${root}/wt`,
        env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" },
        launcher,
      });
      await p.finished;
      assert.match(p.output.text(), /^2$/m, p.output.text());
      assert.match(p.output.text(), /rc=1/);
      await assert.rejects(
        Deno.lstat(`${root}/repo/.git/hooks/post-checkout`),
        Deno.errors.NotFound,
      );
    } finally {
      await launcher.dispose();
      await Deno.remove(root, { recursive: true });
    }
  },
});
