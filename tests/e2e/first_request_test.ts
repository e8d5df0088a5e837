/**
 * Golden files of the exact first request (system text and tools) of three runs:
 * `coder`, `readonly`, and `coder --output-schema`. A change to what the model is
 * told shows up as a diff of tests/e2e/golden/*.txt in review. To accept a change:
 *   MOPAC_UPDATE_GOLDEN=1 deno test -A tests/e2e/first_request_test.ts
 * The workspace is the same on every machine; the path, date and platform are
 * replaced by placeholders (see _first_request.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { noJail } from "../_support/jail.ts";
import { captureFirstRequest, normalise, render, requestOf } from "./_first_request.ts";

const GOLDEN = fileURLToPath(new URL("./golden/", import.meta.url));
const UPDATE = Deno.env.get("MOPAC_UPDATE_GOLDEN") === "1";

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] } },
  required: ["verdict"],
});

const CASES = [
  { file: "first_request_coder.txt", flags: [] as string[], bash: true },
  { file: "first_request_readonly.txt", flags: ["--agent", "readonly"], bash: false },
  {
    file: "first_request_coder_output_schema.txt",
    flags: ["--output-schema", "schema.json"],
    bash: true,
  },
];

for (const c of CASES) {
  Deno.test({
    name: `golden: the first request of \`mopac run ${c.flags.join(" ")}\` (${c.file})`,
    // The bash tool's description names the OS jail: without one the text differs.
    ignore: c.bash && noJail(`golden ${c.file}`),
    async fn() {
      const run = await captureFirstRequest(c.flags, { files: { "schema.json": SCHEMA } });
      assert.equal(run.code, 0, run.stderr);
      const text = render(normalise(run.request, run.dir));
      if (UPDATE) await Deno.writeTextFile(GOLDEN + c.file, text);
      const golden = await Deno.readTextFile(GOLDEN + c.file);
      assert.equal(text, golden, `${c.file} changed: review the diff, then MOPAC_UPDATE_GOLDEN=1`);
      // The git status is the start snapshot without the session the run itself writes.
      assert.match(run.request.system, /\n\?\? notes\.txt\nRecent commits:/);
      assert.doesNotMatch(run.request.system, /\.mopac/);
      // Nothing of this machine or run is left in the golden.
      assert.doesNotMatch(golden, /\/tmp\/|mopac-e2e-|\d{4}-\d{2}-\d{2}|linux x86|127\.0\.0\.1/);
    },
  });
}

Deno.test("the system text and tools are byte-identical on every request of a run", async () => {
  const run = await captureFirstRequest(["--agent", "readonly"], {
    turns: [scriptToolCall("view", { file_path: "AGENTS.md" }), scriptText("done")],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.requests.length, 2);
  assert.deepEqual(requestOf(run.requests[1]), requestOf(run.requests[0]));
});
