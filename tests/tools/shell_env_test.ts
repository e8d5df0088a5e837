/** The child environment: built from scratch, never carrying provider keys. */
import assert from "node:assert/strict";
import { buildChildEnv, FIXED, INHERITED, keepsExport } from "../../src/tools/shell/env.ts";
import { DENO_RUN } from "../_support/deps.ts";

Deno.test("only listed variables are inherited, then fixed settings, config, session exports", () => {
  const parent: Record<string, string> = {
    PATH: "/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    OPENAI_API_KEY: "sk-parent",
    ANTHROPIC_API_KEY: "sk-ant",
    GITHUB_TOKEN: "ghp",
    AWS_SECRET_ACCESS_KEY: "aws",
    LD_PRELOAD: "/evil.so",
    RANDOM_OTHER: "x",
  };
  const env = buildChildEnv({
    read: (name) => parent[name],
    config: { CFG: "1", DEPLOY_TOKEN: "from-config" },
    session: { FOO: "bar", NPM_TOKEN: "exported-secret", LD_PRELOAD: "/x.so", PWD: "/old" },
  });
  assert.deepEqual(env, {
    PATH: "/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    ...FIXED,
    CFG: "1",
    DEPLOY_TOKEN: "from-config",
    FOO: "bar",
  });
  for (const name of Object.keys(env)) {
    assert.ok(
      INHERITED.includes(name) || name in FIXED || ["CFG", "DEPLOY_TOKEN", "FOO"].includes(name),
    );
  }
});

Deno.test("PATH falls back to a standard one when it cannot be read", () => {
  const env = buildChildEnv({ read: () => undefined, config: {}, session: {} });
  assert.match(env.PATH, /\/usr\/bin/);
});

Deno.test("exports of secret-looking names are kept only when config passed that name", () => {
  assert.equal(keepsExport("SOME_TOKEN", {}), false);
  assert.equal(keepsExport("SOME_TOKEN", { SOME_TOKEN: "x" }), true);
  assert.equal(keepsExport("OPENAI_API_KEY", {}), false);
  assert.equal(keepsExport("db_password", {}), false);
  assert.equal(keepsExport("TOKENIZER_PATH", {}), true);
  assert.equal(keepsExport("OLDPWD", {}), false);
});

async function childEnvUnder(flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/probe.ts`;
    const bash = new URL("../../src/tools/bash.ts", import.meta.url).href;
    const jobs = new URL("../../src/tools/shell/jobs.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { createBashTool } from "${bash}";
import { JobManager } from "${jobs}";
const jobs = new JobManager();
const tool = createBashTool({ jobs });
const ctx = { session_id: "s", workspace: ${
        JSON.stringify(dir)
      }, signal: new AbortController().signal,
  state: { viewed: new Map(), todos: [], shell: { cwd: "", env: {} } }, env: { FROM_CONFIG: "c" },
  attachments: false, recordChange() {}, stateChanged() {} };
const out = await tool.run(tool.parse({ command: "env" }), ctx);
console.log(out.content);
await jobs.dispose();
`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const res = await new Deno.Command(Deno.execPath(), {
      args: [...DENO_RUN, "--no-prompt", "--config", config, ...flags, script],
      env: {
        OPENAI_API_KEY: "sk-test-never-in-child",
        ANTHROPIC_API_KEY: "sk-ant-never",
        LITELLM_MASTER_KEY: "never-either",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: res.code, out: dec.decode(res.stdout), err: dec.decode(res.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("provider keys in mopac's environment never reach a command (full permissions)", async () => {
  const { code, out, err } = await childEnvUnder(["-A"]);
  assert.equal(code, 0, err);
  assert.match(out, /^FROM_CONFIG=c$/m);
  assert.match(out, /^PATH=/m);
  assert.doesNotMatch(out, /never/);
  assert.doesNotMatch(out, /OPENAI|ANTHROPIC|LITELLM/);
});

Deno.test("under narrow Deno permissions unreadable variables are skipped, not fatal", async () => {
  const { code, out, err } = await childEnvUnder([
    "--allow-run=bash",
    "--allow-env=PATH",
    "--allow-read",
  ]);
  assert.equal(code, 0, err);
  assert.match(out, /^PATH=/m);
  assert.doesNotMatch(out, /^HOME=/m, "HOME was not granted");
  assert.doesNotMatch(out, /never/);
});

Deno.test("variables that change what runs are never carried over, and bash starts without its own", () => {
  const env = buildChildEnv({
    read: (name) => ({ PATH: "/bin", HOME: "/home/u" })[name],
    // Config may set program variables on purpose, never bash's own startup ones.
    config: { BASH_ENV: "/cfg/rc", PS4: "$(id)", SHELLOPTS: "xtrace", GIT_DIR: "/cfg/git" },
    // What an earlier call exported, or a session written by an older mopac, or resumed.
    session: {
      BASH_ENV: "./e.sh",
      ENV: "./e.sh",
      PS4: "$(id)",
      PROMPT_COMMAND: "id",
      "BASH_FUNC_ls%%": "() { id; }",
      PATH: "./evil:/bin",
      LD_PRELOAD: "./x.so",
      GIT_CONFIG_COUNT: "1",
      npm_config_global: "true",
      NODE_OPTIONS: "--require ./x",
      PIP_CACHE_DIR: "/cache/pip",
      FOO: "bar",
    },
  });
  for (const name of ["BASH_ENV", "ENV", "PS4", "SHELLOPTS", "PROMPT_COMMAND", "BASH_FUNC_ls%%"]) {
    assert.equal(env[name], undefined, name);
  }
  assert.equal(env.PATH, "/bin");
  assert.equal(env.GIT_DIR, "/cfg/git", "operator config may set a program variable");
  for (const name of ["LD_PRELOAD", "GIT_CONFIG_COUNT", "npm_config_global", "NODE_OPTIONS"]) {
    assert.equal(env[name], undefined, name);
  }
  assert.equal(env.PIP_CACHE_DIR, "/cache/pip", "a cache folder is not one of them");
  assert.equal(env.FOO, "bar");
  assert.equal(keepsExport("LD_PRELOAD", {}), false);
  assert.equal(keepsExport("PATH", {}), false);
  assert.equal(keepsExport("MY_FLAG", {}), true);
});
