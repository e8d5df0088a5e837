/**
 * A project configured the way crush's docs show it, through the real CLI: both
 * crush.json and .crush.json (the dotted one wins, as in crush), `lsp`, TUI options and
 * `aws_auth_refresh` (accepted, listed as ignored, named by `run -v`), and a hook under
 * `pre_tool_use` that really runs.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

Deno.test("e2e crush config: .crush.json wins, ignored keys are listed, pre_tool_use hooks run", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("bash", { command: "echo hi" }), scriptText("done")],
  });
  await Deno.writeTextFile(
    `${ws.dir}/crush.json`,
    JSON.stringify({ options: { tui: { compact_mode: true } }, limits: { max_turns: 1 } }),
  );
  await Deno.writeTextFile(
    `${ws.dir}/.crush.json`,
    JSON.stringify({
      lsp: { go: { command: "gopls" } },
      limits: { max_turns: 5 },
      providers: {
        bedrock: { base_url: "http://127.0.0.1:9/v1", aws_auth_refresh: "aws sso login" },
      },
      hooks: {
        pre_tool_use: [{ matcher: "^bash$", command: "echo 'no shell today' >&2; exit 2" }],
      },
    }),
  );
  const shown = await ws.run(["config", "show", "--sources"]);
  assert.equal(shown.code, 0, shown.stderr);
  const [used, ignored] = shown.stdout.split("ignored (accepted for crush, unused by mopac):\n");
  assert.match(used, new RegExp(`^limits\\.max_turns\\t${ws.dir}/\\.crush\\.json$`, "m"));
  assert.doesNotMatch(used, /lsp|tui|aws_auth_refresh/);
  assert.deepEqual(ignored.trimEnd().split("\n").sort(), [
    `  lsp\t${ws.dir}/.crush.json`,
    `  options.tui\t${ws.dir}/crush.json`,
    `  providers.bedrock.aws_auth_refresh\t${ws.dir}/.crush.json`,
  ]);

  const run = await ws.run(["run", "-v", "-o", "stream-json", "say hi"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /providers\.bedrock\.aws_auth_refresh \(.*\.crush\.json\) is a crush key mopac does not use; ignored/,
  );
  assert.match(run.stderr, /lsp \(.*\) is a crush key/);
  const result = events(run.stdout).find((e) => e.type === "tool_result")!;
  assert.equal(result.denied, true);
  assert.match(String(result.output), /no shell today/);
});
