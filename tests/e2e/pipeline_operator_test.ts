/**
 * Smaller things a pipeline relies on: a built-in provider's base URL set from the
 * operator's environment (`LITELLM_BASE_URL`, as the SDKs read OPENAI_BASE_URL), part
 * of the flags `mopac sandbox` prints; and a call to a tool `--tools` took away is
 * blamed on `--tools`, not on a profile that allows it.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall, startFakeOpenAI } from "../_support/fake_openai.ts";
import { events, runMopac } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("LITELLM_BASE_URL points the built-in litellm provider at the fake; sandbox names it", async () => {
  const fake = await startFakeOpenAI({ turns: () => scriptText("from the gateway") });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-baseurl-" }));
  try {
    const env = { LITELLM_API_KEY: "sk-litellm", LITELLM_BASE_URL: fake.url };
    const args = ["-m", "litellm/gpt-4.1", "--tools", "view"];
    const sandbox = await runMopac(["sandbox", ...args], { cwd: dir, perms: { all: true }, env });
    assert.equal(sandbox.code, 0, sandbox.stderr);
    const flags = sandbox.stdout.trim().split(/\s+/);
    assert.ok(flags.includes(`--allow-net=127.0.0.1:${fake.port}`), sandbox.stdout);
    const allowEnv = flags.find((f) => f.startsWith("--allow-env="))!.split("=")[1].split(",");
    assert.ok(allowEnv.includes("LITELLM_BASE_URL") && allowEnv.includes("LITELLM_API_KEY"));

    const run = ["run", ...args, "-o", "stream-json", "hi"];
    const r = await runMopac(run, { cwd: dir, perms: {}, flags: ["--no-prompt", ...flags], env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(events(r.stdout).at(-1)!.result, "from the gateway");
    assert.equal(fake.turnRequests()[0].model, "gpt-4.1");
    assert.equal(fake.requests[0].headers.authorization, "Bearer sk-litellm");

    // Flags that hide the variable: exit 2 naming it, not a request to localhost:4000.
    const hidden = flags.map((f) => f.replace(/LITELLM_BASE_URL,?/, "").replace(/,$/, ""));
    const refused = await runMopac(run, {
      cwd: dir,
      perms: {},
      flags: ["--no-prompt", ...hidden],
      env,
    });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--allow-env=LITELLM_BASE_URL/);
    const bad = await runMopac(run, {
      cwd: dir,
      perms: { all: true },
      env: { ...env, LITELLM_BASE_URL: "litellm:4000" },
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\$LITELLM_BASE_URL is not an http\(s\) URL/);
    assert.equal(fake.turnRequests().length, 1);
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a call to a tool --tools left out is denied naming --tools, not the profile", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("bash", { command: "ls" }, "call_bash"), scriptText("ok")],
  });
  const r = await ws.run(["run", "--tools", "view", "-o", "json", "list"]);
  assert.equal(r.code, 0, r.stderr);
  const [denial] = JSON.parse(r.stdout).denials;
  assert.equal(denial.tool, "bash");
  assert.equal(
    denial.reason,
    'tool "bash" is not offered in this run: --tools leaves it out (profile "coder" has it)',
  );
  assert.doesNotMatch(r.stderr, /not allowed by profile "coder"/);
});
