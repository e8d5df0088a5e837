/**
 * `deno task demo` works: tests/demo/run_demo.ts replays the recorded session in a
 * temporary copy of tests/demo/sample under narrow flags, with no key and no network.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cleanDenoEnv } from "../_support/run_mopac.ts";

const RUN_DEMO = fileURLToPath(new URL("../demo/run_demo.ts", import.meta.url));
const SAMPLE = fileURLToPath(new URL("../demo/sample/src/greet.ts", import.meta.url));

Deno.test("demo: the recorded session replays offline, answers and fixes the greeting", async () => {
  const before = await Deno.readTextFile(SAMPLE);
  // The flags of the `demo` task in deno.json.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      RUN_DEMO,
    ],
    clearEnv: true,
    env: cleanDenoEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  // stdout: the final answer only.
  assert.equal(
    stdout,
    'Fixed the misspelled greeting in src/greet.ts ("Helo" → "Hello"). ' +
      "`bash check.sh` passes.\n",
  );
  // The text before each tool call and the tool progress on stderr, then the file as the
  // run left it.
  assert.match(
    stderr,
    /I'll look at the greeting first\.\n→ view src\/greet\.ts\n← view ok · [\d.]+s\n[\s\S]*Fixing it\.\n→ edit src\/greet\.ts\n← edit ok[^\n]*\n[\s\S]*→ bash bash check\.sh\n← bash ok/,
  );
  assert.match(stderr, /exit code 0; src\/greet\.ts now reads:/);
  assert.match(stderr, /return `Hello, \$\{name\}!`;/);
  assert.doesNotMatch(stderr, /Helo,/);
  // The sample itself is untouched: the demo works on a copy.
  assert.equal(await Deno.readTextFile(SAMPLE), before);
  assert.match(before, /Helo,/);
});
