/**
 * MOPAC_* variables are config, so they hold under the flags `mopac sandbox` prints,
 * and a run whose Deno flags hide them does not start (exit 2 naming the flag)
 * instead of losing a budget or a model quietly.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("MOPAC_* under the flags mopac sandbox prints: honoured; hidden from Deno: exit 2 naming --allow-env=MOPAC_*", async () => {
  // No models.large: only MOPAC_MODEL selects one. Two turns of work, but one allowed.
  await using ws = await workspace({
    turns: [scriptToolCall("ls", { path: "." }), scriptText("done")],
  }, { models: {} });
  const env = { MOPAC_MODEL: "fake/fake-model", MOPAC_MAX_TURNS: "1" };
  const sandbox = await ws.run(["sandbox", "--tools", "ls"], { perms: { all: true }, env });
  assert.equal(sandbox.code, 0, sandbox.stderr);
  const flags = sandbox.stdout.trim().split(/\s+/);
  const allowEnv = flags.find((f) => f.startsWith("--allow-env="))!;
  assert.ok(allowEnv.split("=")[1].split(",").includes("MOPAC_*"), allowEnv);
  // The wildcard covers the variables that were set; they are not listed again.
  assert.doesNotMatch(allowEnv, /MOPAC_MODEL|MOPAC_MAX_TURNS|MOPAC_TRUST_PROJECT/);

  const r = await ws.run(["run", "--tools", "ls", "-o", "stream-json", "list it"], {
    flags: ["--no-prompt", ...flags],
    env,
  });
  assert.equal(r.code, 4, r.stderr);
  const ev = events(r.stdout);
  assert.equal(ev[0].model, "fake/fake-model");
  assert.equal(ev.at(-1)!.subtype, "error_max_turns");
  assert.equal(ws.fake.turnRequests().length, 1);

  // The same flags without MOPAC_*: no run, no request, the flag named; `config show` alike.
  const narrower = flags.map((f) =>
    f === allowEnv ? allowEnv.replace(/,?MOPAC_\*/, "").replace("=,", "=") : f
  );
  for (const args of [["run", "--tools", "ls", "list it"], ["config", "show"]]) {
    const hidden = await ws.run(args, { flags: ["--no-prompt", ...narrower], env });
    assert.equal(hidden.code, 2, `${args.join(" ")}: ${hidden.stderr}`);
    assert.match(hidden.stderr, /environment variable MOPAC_[A-Z_]+/);
    assert.match(hidden.stderr, /--allow-env=MOPAC_\*/);
    assert.doesNotMatch(hidden.stderr, /no model selected|internal error/);
  }
  assert.equal(ws.fake.turnRequests().length, 1);
});
