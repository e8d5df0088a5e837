/**
 * `-f FILE`, `-f -`, `--system-prompt-file` and `--append-system-prompt` end to end:
 * what the model received as the user message and the system prompt, what the
 * session recorded, and bad input as exit 2 naming the flag.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { contentText } from "./_live.ts";

const userText = (ws: Workspace, i = 0) =>
  contentText(ws.fake.turnRequests()[i].messages.filter((m) => m.role === "user").at(-1)!);
const systemText = (ws: Workspace, i = 0) =>
  contentText(ws.fake.turnRequests()[i].messages.find((m) => m.role === "system")!);

async function sessionMeta(ws: Workspace): Promise<Record<string, unknown>> {
  const dir = `${ws.dir}/.mopac/sessions`;
  const file = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".jsonl"))!;
  const lines = (await Deno.readTextFile(`${dir}/${file.name}`)).trim().split("\n")
    .map((l) => JSON.parse(l));
  return Object.assign({}, ...lines.filter((l) => l.type === "meta"));
}

Deno.test("e2e -f: the prompt comes from a file (piped stdin ignored), words follow it", async () => {
  await using ws = await workspace({ turns: [scriptText("ok"), scriptText("ok")] });
  await Deno.writeTextFile(`${ws.dir}/task.md`, "Fix the build.\nThen run the tests.\n");
  let r = await ws.run(["run", "-f", "task.md", "and", "report"], { stdin: "not this" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(userText(ws), "Fix the build.\nThen run the tests.\n\nand report");
  assert.deepEqual((await sessionMeta(ws)).run_inputs, { prompt_file: "task.md" });

  r = await ws.run(["run", "--ephemeral", "-f", "-"], { stdin: "from stdin\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(userText(ws, 1), "from stdin");
});

Deno.test("e2e --system-prompt-file / --append-system-prompt: base replaced, the rest kept, recorded", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  await Deno.writeTextFile(`${ws.dir}/AGENTS.md`, "Use tabs in this repository.\n");
  await Deno.writeTextFile(`${ws.dir}/sys.md`, "You are the release bot of ACME.\n");
  const r = await ws.run([
    "run",
    "--system-prompt-file",
    "sys.md",
    "--append-system-prompt",
    "Answer in French.",
    "hi",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const system = systemText(ws);
  assert.ok(system.startsWith("You are the release bot of ACME."), system.slice(0, 200));
  assert.doesNotMatch(system, /You are mopac/);
  assert.doesNotMatch(system, /# How the run ends/);
  assert.match(system, /# Untrusted content/);
  assert.match(system, /# Environment/);
  assert.match(system, /Use tabs in this repository\./, "context files stay");
  assert.ok(system.trimEnd().endsWith("Answer in French."), system.slice(-200));
  const meta = await sessionMeta(ws);
  assert.deepEqual(meta.run_inputs, {
    system_prompt: {
      file: `${ws.dir}/sys.md`,
      text: "You are the release bot of ACME.\n",
      appended: "Answer in French.",
    },
  });
});

Deno.test("e2e --append-system-prompt alone keeps mopac's prompt and adds the text last", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  const r = await ws.run(["run", "--append-system-prompt", "Be brief.", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const system = systemText(ws);
  assert.match(system, /^You are mopac/);
  assert.ok(system.endsWith("\n\nBe brief."));
});

Deno.test("e2e -f/--system-prompt-file: bad files are exit 2 naming the flag, no request", async () => {
  await using ws = await workspace({ turns: [scriptText("never")] });
  await Deno.writeTextFile(`${ws.dir}/empty.md`, "  \n");
  const cases: Array<[string[], RegExp]> = [
    [["-f", "missing.md"], /-f missing\.md: no such file/],
    [["-f", "."], /-f \.: is a directory/],
    [["-f", ""], /--prompt-file needs a value/],
    [["-f", "empty.md"], /no prompt given/],
    [["--system-prompt-file", "nope.md", "hi"], /--system-prompt-file nope\.md: no such file/],
    [
      ["--system-prompt-file", "empty.md", "hi"],
      /--system-prompt-file empty\.md: the file is empty/,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = await ws.run(["run", ...flags]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(ws.fake.requests.length, 0);
});
