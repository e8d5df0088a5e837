/**
 * Failures before the start, as a pipeline reads them: a bad flag in `-o json` or
 * `-o stream-json` still prints a `result` object; `mopac sandbox` works without a
 * model (the run's `-m` then names the host the preflight asks for).
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("bad flags with -o json / stream-json print a result object (exit 2); text prints nothing on stdout", async () => {
  await using ws = await workspace({ turns: [] });
  const bad: Array<[string[], RegExp]> = [
    [["--bogus"], /Unknown option '--bogus'/],
    [["--max-turns", "abc"], /--max-turns needs a positive whole number/],
    [["--on-deny", "maybe"], /unknown --on-deny mode 'maybe'/],
    [["--max-cost", "-1"], /--max-cost/],
    [["--max-cost=-1"], /--max-cost needs a positive number, got '-1'/],
  ];
  for (const [flags, message] of bad) {
    for (const output of [["-o", "json"], ["--output-format=stream-json"], ["-ojson"]]) {
      // The format before and after the bad flag.
      for (const args of [[...output, ...flags], [...flags, ...output]]) {
        const r = await ws.run(["run", ...args, "x"]);
        const what = args.join(" ");
        assert.equal(r.code, 2, what);
        assert.match(r.stderr, message, what);
        const lines = events(r.stdout);
        assert.equal(lines.length, 1, `${what}: ${r.stdout}`);
        const [result] = lines;
        assert.equal(result.type, "result", what);
        assert.equal(result.v, 1);
        assert.equal(result.is_error, true);
        assert.equal(result.exit_code, 2);
        assert.match(result.error as string, message, what);
      }
    }
    const text = await ws.run(["run", ...flags, "x"]);
    assert.equal(text.code, 2);
    assert.equal(text.stdout, "");
  }
  assert.equal(ws.fake.requests.length, 0);
});

Deno.test("mopac sandbox without a model prints flags; the run's -m then names the missing host", async () => {
  await using ws = await workspace({ turns: () => scriptText("done") }, { models: {} });
  const sandbox = await ws.run(["sandbox", "--tools", "view"], { perms: { all: true } });
  assert.equal(sandbox.code, 0, sandbox.stderr);
  assert.match(
    sandbox.stderr,
    /no model selected, so no provider's host or key is among the flags/,
  );
  const flags = sandbox.stdout.trim().split(/\s+/);
  assert.ok(flags.some((f) => f.startsWith("--allow-read=")), sandbox.stdout);
  assert.ok(!flags.some((f) => f.startsWith("--allow-net")), "no provider, no host");

  const run = ["run", "--tools", "view", "-m", "fake/fake-model", "-o", "stream-json", "hi"];
  const missing = await ws.run(run, { flags: ["--no-prompt", ...flags] });
  assert.equal(missing.code, 2);
  assert.ok(missing.stderr.includes(`--allow-net=127.0.0.1:${ws.fake.port}`), missing.stderr);
  assert.equal(ws.fake.requests.length, 0);

  // Given the run's -m, sandbox prints flags under which that run works.
  const withModel = await ws.run(["sandbox", "--tools", "view", "-m", "fake/fake-model"], {
    perms: { all: true },
  });
  assert.equal(withModel.code, 0, withModel.stderr);
  const ok = await ws.run(run, {
    flags: ["--no-prompt", ...withModel.stdout.trim().split(/\s+/)],
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(events(ok.stdout).at(-1)!.result, "done");
});
