/**
 * `deno task demo`: replays a recorded session (view, edit, bash, answer) in a
 * temporary copy of a small sample project. No API key and no network: mopac runs
 * under narrow Deno permissions with --replay.
 */
import { cp } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-demo-" }));
await cp(here("./sample"), work, { recursive: true });
const cassette = here("./session.cassette.jsonl");
const prompt = "fix the greeting";

console.error(`mopac demo: a copy of tests/demo/sample in ${work}`);
// The sample's mopac.json is ours: --trust-project lets it define the provider it names.
console.error(
  `mopac demo: $ mopac run --trust-project --replay session.cassette.jsonl "${prompt}"\n`,
);
const status = await new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--no-prompt",
    `--allow-read=${work},${cassette}`,
    `--allow-write=${work}`,
    "--allow-run=bash,bwrap",
    "--allow-env=HOME,PATH,NO_COLOR,DEMO_BASE_URL,MOPAC_*",
    here("../../main.ts"),
    "run",
    "--trust-project",
    "--replay",
    cassette,
    prompt,
  ],
  cwd: work,
  stdout: "inherit",
  stderr: "inherit",
}).spawn().status;

const fixed = await Deno.readTextFile(`${work}/src/greet.ts`);
console.error(`\nmopac demo: exit code ${status.code}; src/greet.ts now reads:\n`);
console.error(fixed);
await Deno.remove(work, { recursive: true });
Deno.exit(status.code);
