/**
 * What the model is told and gets back, end to end against the fake server: one
 * rule for relative paths from a subfolder, unknown argument names and out-of-range
 * time limits refused as errors, an unknown tool name that is no denial, view's
 * line-number prefix named in edit's error, and the `agent` tool describing the
 * sub-agent's real tools.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";
import { toolResults } from "./_tool_results.ts";
import { requestOf } from "./_first_request.ts";

Deno.test("e2e: run from a subfolder, every tool resolves relative paths against the working directory", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("view", { file_path: "here.txt" }),
      scriptToolCall("ls", {}),
      scriptToolCall("glob", { pattern: "*.txt" }),
      scriptToolCall("grep", { pattern: "marker" }),
      scriptToolCall("edit", { file_path: "here.txt", old_string: "sub", new_string: "SUB" }),
      scriptToolCall("bash", { command: "cd .. && cat here.txt" }),
      scriptToolCall("view", { file_path: "here.txt" }),
      scriptText("done"),
    ],
  });
  const sub = `${ws.dir}/sub`;
  await Deno.mkdir(`${ws.dir}/.git`);
  await Deno.mkdir(sub);
  await Deno.writeTextFile(`${ws.dir}/here.txt`, "marker in the root\n");
  await Deno.writeTextFile(`${sub}/here.txt`, "marker in sub\n");
  const r = await ws.run(["run", "go"], { cwd: sub });
  assert.equal(r.code, 0, r.stderr);
  const requests = ws.fake.turnRequests();
  const system = requestOf(requests[0]).system;
  assert.match(system, new RegExp(`\\nWorkspace root: ${ws.dir}\\nWorking directory: ${sub}\\n`));
  assert.match(
    system,
    /Relative paths in every tool resolve against the working directory; a cd in bash moves it for every tool\./,
  );
  const [view, ls, glob, grep, edit, bash, after] = toolResults(requests.at(-1)!);
  assert.match(view, /^<file>\n {5}1\|marker in sub\n<\/file>$/);
  assert.match(ls, new RegExp(`^- ${sub}/\\n  - here\\.txt$`));
  assert.equal(glob, `${sub}/here.txt`);
  assert.match(
    grep,
    new RegExp(`^Found 1 matches\\n${sub}/here\\.txt:\\n  Line 1: marker in sub$`),
  );
  assert.match(edit, new RegExp(`^Edited ${sub}/here\\.txt`));
  assert.equal(await Deno.readTextFile(`${sub}/here.txt`), "marker in SUB\n");
  // bash starts in the working directory; its cd moves the current directory of every tool.
  assert.match(
    bash,
    /^marker in the root\n\nThe current directory is now .* \(for relative paths in every tool\)$/,
  );
  assert.match(after, /^<file>\n {5}1\|marker in the root\n<\/file>$/);
});

Deno.test("e2e: unknown arguments, a time limit over its maximum and an unknown tool are errors the model reads, not denials", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("grep", { pattern: "x", glob: "*.ts" }),
      scriptToolCall("bash", { command: "touch made.txt", timeout_ms: 5000 }),
      scriptToolCall("bash", { command: "touch made.txt", timeout: 700000 }),
      scriptToolCall("apply_patch", { input: "*** Begin Patch" }),
      scriptToolCall("view", { file_path: "f.py" }),
      scriptToolCall("edit", {
        file_path: "f.py",
        old_string: "     2|    return 1",
        new_string: "    return 2",
      }),
      scriptText("done"),
    ],
  });
  await Deno.writeTextFile(`${ws.dir}/f.py`, "def f():\n    return 1\n");
  const r = await ws.run(["run", "-o", "stream-json", "--on-deny", "stop", "go"], {
    cwd: ws.dir,
    perms: ws.perms,
  });
  // None of these is a denial: --on-deny stop does not end the run.
  assert.equal(r.code, 0, r.stderr);
  const result = events(r.stdout).at(-1)!;
  assert.equal(result.subtype, "success");
  assert.deepEqual(result.denials, []);
  const [grep, timeoutMs, tooLong, patch, , edit] = toolResults(ws.fake.turnRequests().at(-1)!);
  assert.equal(
    grep,
    'Invalid arguments for grep: unknown argument "glob" (did you mean "include" or "pattern"?); ' +
      "accepted: pattern, path, include, literal_text",
  );
  assert.match(
    timeoutMs,
    /^Invalid arguments for bash: unknown argument "timeout_ms" \(did you mean "timeout"\?\); accepted: command, description, working_dir, timeout, run_in_background, auto_background_after$/,
  );
  assert.equal(
    tooLong,
    "Invalid arguments for bash: timeout must be at most 600000, got 700000",
  );
  // Neither bash call ran.
  await assert.rejects(Deno.stat(`${ws.dir}/made.txt`), Deno.errors.NotFound);
  assert.match(
    patch,
    /^No tool named "apply_patch"\. Did you mean "edit" or "multiedit" or "write"\? Available: agent, bash, edit, .*view, write\.$/,
  );
  assert.match(
    edit,
    /It starts with " {5}2\|", which looks like the line-number prefix view shows/,
  );
  assert.equal(await Deno.readTextFile(`${ws.dir}/f.py`), "def f():\n    return 1\n");
});

Deno.test("e2e: the agent tool describes the sub-agent's real tools when the task profile is refined", async () => {
  await using ws = await workspace({ turns: [scriptText("done")] });
  await Deno.writeTextFile(
    `${ws.dir}/operator.json`,
    JSON.stringify({ agents: { task: { allowed_tools: ["view", "grep"] } } }),
  );
  const r = await ws.run(["run", "--config", "operator.json", "go"], {
    cwd: ws.dir,
    perms: ws.perms,
  });
  assert.equal(r.code, 0, r.stderr);
  const agent = requestOf(ws.fake.turnRequests()[0]).tools.find((t) => t.name === "agent")!;
  assert.match(
    agent.description,
    /answering a question about the codebase\. It has these tools: view and grep; it cannot change files or run commands\./,
  );
  assert.doesNotMatch(agent.description, /\bfetch\b|the web|\bls\b|\bglob\b/);
});

Deno.test("e2e: a tool that exists but the profile does not offer stays a denial, naming what is offered", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("write", { file_path: "x.txt", content: "x" }), scriptText("done")],
  });
  const r = await ws.run(["run", "-o", "json", "--agent", "readonly", "go"], {
    cwd: ws.dir,
    perms: ws.perms,
  });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.denials.length, 1);
  assert.equal(result.denials[0].rule, "not_allowed");
  const [denied] = toolResults(ws.fake.turnRequests().at(-1)!);
  assert.equal(
    denied,
    'Permission denied: tool "write" is not allowed by profile "readonly" (rule: not_allowed). ' +
      "Available: glob, grep, ls, todos, view.",
  );
});
