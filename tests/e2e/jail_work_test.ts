/**
 * Ordinary work inside the jail, through a real run: git status, diff and commit,
 * a node script, a python3 script writing in the workspace, `deno test` of a small
 * project, package caches that persist, the session's private /tmp across calls,
 * and the everyday "start the dev server, then test against it" across two calls
 * (one jail per session: same network namespace), stopped with job_kill.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { noJail } from "../_support/jail.ts";
import { workspace } from "../_support/workspace.ts";

async function has(cmd: string): Promise<boolean> {
  return (await new Deno.Command("bash", { args: ["-c", `command -v ${cmd}`] }).output()).success;
}

Deno.test({
  name: "jail work: git, node, python, deno test, caches, /tmp and a dev server across calls",
  ignore: noJail("ordinary work inside the jail"),
  async fn() {
    const py = await has("python3");
    const node = await has("node");
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const fetchLoop = (path: string) =>
      `for i in $(seq 100); do python3 -c "import urllib.request as u; ` +
      `print(u.urlopen('http://localhost:${port}${path}', timeout=2).read().decode())" ` +
      `2>/dev/null && break; sleep 0.1; done`;
    const bash = (command: string, extra: Record<string, unknown> = {}) =>
      scriptToolCall("bash", { command, ...extra });
    const turns = [
      bash(
        "git status --short && git diff --stat && git add -A && git -c user.name=agent -c user.email=agent@example.com commit -qm 'jailed commit' && git log --oneline | wc -l",
      ),
      bash("echo 'changed' >> README.md && git diff --stat"),
      bash(
        node
          ? "node -e \"require('fs').writeFileSync('from-node.txt', 'node ran')\" && cat from-node.txt"
          : "echo node ran",
      ),
      bash(
        py
          ? "python3 -c \"open('from-python.txt','w').write('python ran')\" && cat from-python.txt"
          : "echo python ran",
      ),
      bash("cd proj && deno test -q 2>&1 | tail -3"),
      bash(
        'echo kept > /tmp/keep && mkdir -p "$npm_config_cache" && touch "$npm_config_cache/x" && echo cache-ok',
      ),
      bash("cat /tmp/keep; ls $TMPDIR"),
      bash("mkdir -p /tmp/build && cd /tmp/build"),
      bash("pwd"),
      ...(py
        ? [
          bash(`echo served > index.txt && exec python3 -m http.server ${port} --bind 127.0.0.1`, {
            run_in_background: true,
          }),
          bash(fetchLoop("/index.txt")),
          scriptToolCall("job_kill", { shell_id: "job-1" }),
        ]
        : []),
      scriptText("done"),
    ];
    await using ws = await workspace({ turns });
    const git = (args: string[]) =>
      new Deno.Command("git", { args, cwd: ws.dir, stdout: "null", stderr: "null" }).output();
    await git(["init", "-q"]);
    await Deno.writeTextFile(`${ws.dir}/README.md`, "hello\n");
    await Deno.writeTextFile(`${ws.dir}/.gitignore`, ".mopac/\n");
    await Deno.mkdir(`${ws.dir}/proj`);
    await Deno.writeTextFile(
      `${ws.dir}/proj/add_test.ts`,
      'Deno.test("adds", () => { if (1 + 1 !== 2) throw new Error("math"); });\n',
    );
    const r = await ws.run(["run", "-o", "stream-json", "work"]);
    assert.equal(r.code, 0, r.stderr);
    const results = events(r.stdout).filter((e) => e.type === "tool_result") as Array<
      { output: string; is_error: boolean; denied: boolean }
    >;
    const out = results.map((x) => x.output);
    assert.ok(results.every((x) => !x.denied), JSON.stringify(out));
    assert.match(out[0], /^1$/m, `git commit: ${out[0]}`);
    assert.match(out[1], /README\.md \| 1 \+/);
    assert.match(out[2], /node ran/);
    assert.match(out[3], /python ran/);
    assert.match(out[4], /ok \| 1 passed/);
    assert.match(out[5], /cache-ok/);
    assert.match(out[6], /^kept$/m);
    assert.equal(out[8].trim(), "/tmp/build", "a folder of the jail's /tmp is the session's cwd");
    if (py) assert.equal(await Deno.readTextFile(`${ws.dir}/from-python.txt`), "python ran");
    if (node) assert.equal(await Deno.readTextFile(`${ws.dir}/from-node.txt`), "node ran");
    const log = new TextDecoder().decode(
      (await new Deno.Command("git", { args: ["log", "--format=%s"], cwd: ws.dir }).output())
        .stdout,
    );
    assert.equal(log.trim(), "jailed commit");
    // The package cache is mopac's, in the data dir, and outlives the run.
    await Deno.lstat(`${ws.dir}/.mopac/cache/npm/x`);
    if (py) {
      assert.match(out[10], /served/, "the background server answered the next call");
      assert.match(out[11], /was stopped/);
    }
  },
});
