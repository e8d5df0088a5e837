/**
 * Re-records tests/demo/session.cassette.jsonl: runs the demo task against the fake
 * OpenAI server with scripted model turns and `--record`. Run it after changing
 * the request format: `deno run -A tests/demo/record_demo.ts`.
 */
import { cp } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { scriptText, scriptToolCall, startFakeOpenAI } from "../_support/fake_openai.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const fake = await startFakeOpenAI({
  turns: [
    scriptToolCall("view", { file_path: "src/greet.ts" }, "call_view_1", {
      text: "I'll look at the greeting first.",
    }),
    scriptToolCall(
      "edit",
      {
        file_path: "src/greet.ts",
        old_string: "return `Helo, ${name}!`;",
        new_string: "return `Hello, ${name}!`;",
      },
      "call_edit_1",
      { text: 'The greeting is misspelled: "Helo". Fixing it.' },
    ),
    scriptToolCall("bash", { command: "bash check.sh" }, "call_bash_1"),
    scriptText(
      'Fixed the misspelled greeting in src/greet.ts ("Helo" → "Hello"). ' +
        "`bash check.sh` passes.",
    ),
  ],
});
const work = await Deno.makeTempDir({ prefix: "mopac-demo-record-" });
await cp(here("./sample"), work, { recursive: true });
const cassette = here("./session.cassette.jsonl");
await Deno.remove(cassette).catch(() => {});
const out = await new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    here("../../main.ts"),
    "run",
    "--trust-project",
    "--ephemeral",
    "--record",
    cassette,
    "fix the greeting",
  ],
  cwd: work,
  env: { DEMO_BASE_URL: fake.url, NO_COLOR: "1" },
}).output();
await fake.close();
await Deno.remove(work, { recursive: true });
console.log(new TextDecoder().decode(out.stdout));
console.error(new TextDecoder().decode(out.stderr));
Deno.exit(out.code);
