/**
 * The permission gate end to end: a scripted model tries every kind of forbidden
 * action under a user profile from config, through the real CLI under narrow Deno
 * flags. Deno is given write access to the "outside" folder on purpose, so that only
 * mopac's own gate stands between the model and those files.
 */
import assert from "node:assert/strict";
import {
  type ScriptedTurn,
  scriptText,
  scriptToolCall,
  scriptToolCalls,
} from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

interface Locked extends AsyncDisposable {
  ws: Workspace;
  outside: string;
  close(): Promise<void>;
}

const HOOK_REASON = "the hook says listing is off limits";

interface Forbidden {
  turn: ScriptedTurn;
  tool: string;
  /** The call's arguments, which the denial's `input_summary` must show as they were. */
  input: Record<string, unknown>;
  /** What the denial's `rule` must name. */
  rule: RegExp;
}

const deny = (tool: string, input: Record<string, unknown>, rule: RegExp): Forbidden => ({
  turn: scriptToolCall(tool, input),
  tool,
  input,
  rule,
});

/** The forbidden calls, one a turn. */
function forbidden(outside: string): Forbidden[] {
  return [
    // A tool the profile does not offer at all.
    deny("write", { file_path: "src/new.txt", content: "x" }, /^not_allowed$/),
    // A bash command matching a deny pattern.
    deny("bash", { command: "rm src/keep.txt" }, /^bash\.deny:rm \*$/),
    // A banned command (network client), whatever the profile says.
    deny("bash", { command: "curl -s -o src/got.txt http://127.0.0.1:9/x" }, /^ban:network$/),
    // A command the bash allowlist does not list.
    deny("bash", { command: "touch src/touched.txt" }, /^bash\.allow$/),
    // Writes outside paths.write: in the workspace root, and outside the workspace.
    deny("edit", { file_path: "root.txt", old_string: "", new_string: "x" }, /^paths\.write$/),
    deny("edit", {
      file_path: `${outside}/planted.txt`,
      old_string: "",
      new_string: "x",
    }, /^paths\.write$/),
    // Symlink escapes: a linked file and a linked folder inside src/ point outside.
    deny("edit", {
      file_path: "src/link.txt",
      old_string: "original",
      new_string: "hacked",
    }, /^paths\.write$/),
    deny("edit", {
      file_path: "src/escape/via-dir.txt",
      old_string: "",
      new_string: "x",
    }, /^paths\.write$/),
    // A host fetch.hosts does not list.
    deny("fetch", { url: "http://127.0.0.1:9/exfiltrate" }, /^fetch\.hosts$/),
    // An MCP tool allowed_mcp does not list.
    deny("mcp_fx_add", { a: 1, b: 2 }, /^allowed_mcp$/),
    // A PreToolUse hook's denial.
    deny("ls", { path: "." }, /^hook/),
  ];
}

/** Allowed calls in between, so the test also shows the gate does not refuse everything. */
const allowed = (): ScriptedTurn[] => [
  scriptToolCalls([
    { name: "edit", arguments: { file_path: "src/made.txt", old_string: "", new_string: "ok\n" } },
    { name: "mcp_fx_echo", arguments: { text: "echo allowed" } },
    { name: "bash", arguments: { command: "echo fine" } },
  ]),
];

async function lockedWorkspace(): Promise<Locked & { script: ScriptedTurn[] }> {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-outside-" }));
  const turns: ScriptedTurn[] = [];
  const ws = await workspace({ turns }, {
    agents: {
      locked: {
        allowed_tools: ["bash", "view", "edit", "ls", "fetch"],
        allowed_mcp: { fx: ["echo"] },
        bash: { allow: ["echo *", "cat *", "ls *"], deny: ["rm *"] },
        paths: { write: ["src/**"] },
        fetch: { hosts: ["docs.example.com"] },
      },
    },
    hooks: {
      PreToolUse: [{
        matcher: "^ls$",
        command: `cat >/dev/null; echo '${HOOK_REASON}' >&2; exit 2`,
      }],
    },
    mcp: { fx: fixtureStdio() },
  });
  const script = [...forbidden(outside).map((f) => f.turn), ...allowed(), scriptText("done")];
  turns.push(...script);
  await Deno.mkdir(`${ws.dir}/src`);
  await Deno.writeTextFile(`${ws.dir}/src/keep.txt`, "keep me\n");
  await Deno.writeTextFile(`${outside}/target.txt`, "original\n");
  await Deno.symlink(`${outside}/target.txt`, `${ws.dir}/src/link.txt`);
  await Deno.symlink(outside, `${ws.dir}/src/escape`);
  // Deno itself may write outside: only mopac's gate protects it.
  ws.perms.read!.push(outside);
  ws.perms.write!.push(outside);
  ws.perms.run!.push(Deno.execPath());
  const close = async () => {
    await ws.close();
    await Deno.remove(outside, { recursive: true }).catch(() => {});
  };
  return {
    ws,
    outside,
    script,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

async function assertNothingHappened(l: Locked) {
  assert.deepEqual(await listing(l.outside), ["target.txt"]);
  assert.equal(await Deno.readTextFile(`${l.outside}/target.txt`), "original\n");
  assert.equal(await Deno.readTextFile(`${l.ws.dir}/src/keep.txt`), "keep me\n");
  for (const p of ["root.txt", "src/new.txt", "src/got.txt", "src/touched.txt"]) {
    await assert.rejects(Deno.lstat(`${l.ws.dir}/${p}`), Deno.errors.NotFound, p);
  }
}

async function runLocked(l: Locked, onDeny?: string) {
  const args = ["run", "-a", "locked", "-o", "stream-json", "try everything"];
  if (onDeny) args.splice(1, 0, "--on-deny", onDeny);
  const r = await l.ws.run(args);
  const ev = events(r.stdout);
  return { ...r, ev, init: ev[0], result: ev.at(-1)! };
}

async function sessionText(dir: string): Promise<string> {
  const files = (await listing(`${dir}/.mopac/sessions`)).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  return await Deno.readTextFile(`${dir}/.mopac/sessions/${files[0]}`);
}

type Denials = Array<{ tool: string; rule: string; input_summary: string; reason: string }>;

function assertAllDenied(l: Locked, result: Record<string, unknown>) {
  const expected = forbidden(l.outside);
  const denials = result.denials as Denials;
  assert.equal(denials.length, expected.length, JSON.stringify(denials, null, 1));
  expected.forEach((want, i) => {
    const got = denials[i];
    assert.equal(got.tool, want.tool);
    assert.match(got.rule, want.rule, JSON.stringify(got));
    // The summary is the call's arguments as the model sent them (short, no secrets here).
    assert.equal(got.input_summary, JSON.stringify(want.input), JSON.stringify(got));
    assert.ok(got.reason.trim().length > 0, JSON.stringify(got));
  });
  // The reasons say why, in terms of what was tried.
  assert.match(denials[0].reason, /\bwrite\b/);
  assert.match(denials[1].reason, /rm src\/keep\.txt|rm \*/);
  assert.match(denials[8].reason, /127\.0\.0\.1/);
  assert.match(denials[10].reason, new RegExp(HOOK_REASON));
}

Deno.test("e2e gate: every forbidden action is refused and recorded; --on-deny continue exits 0", async () => {
  await using l = await lockedWorkspace();
  const r = await runLocked(l);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.result.subtype, "success");
  assertAllDenied(l, r.result);
  await assertNothingHappened(l);
  // Not offered: write, multiedit, the MCP tool outside allowed_mcp.
  const tools = r.init.tools as string[];
  assert.deepEqual(tools, ["bash", "edit", "fetch", "ls", "mcp_fx_echo", "view"]);
  // Every call reached the model as a denied tool result; the allowed ones ran.
  const results = r.ev.filter((e) => e.type === "tool_result");
  assert.equal(results.filter((e) => e.denied === true).length, forbidden(l.outside).length);
  assert.equal(await Deno.readTextFile(`${l.ws.dir}/src/made.txt`), "ok\n");
  const echo = results.find((e) => e.name === "mcp_fx_echo")!;
  assert.equal(echo.is_error, false);
  assert.match(echo.output as string, /echo allowed/);
  assert.deepEqual(l.ws.fake.rejected, []);
  assert.equal(l.ws.fake.turnRequests().length, l.script.length);
  // The model never saw the tools it may not use.
  const offered = l.ws.fake.turnRequests()[0].tools!.map((t) => t.function.name).sort();
  assert.deepEqual(offered, tools);
  // The session keeps the denials too.
  const session = await sessionText(l.ws.dir);
  const recorded = session.split("\n").filter((line) => line.includes('"denial"'));
  assert.equal(recorded.length, forbidden(l.outside).length);
});

Deno.test("e2e gate: --on-deny fail goes on and exits 3", async () => {
  await using l = await lockedWorkspace();
  const r = await runLocked(l, "fail");
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.result.subtype, "error_gate");
  assert.equal(r.result.exit_code, 3);
  assertAllDenied(l, r.result);
  await assertNothingHappened(l);
  assert.equal(l.ws.fake.turnRequests().length, l.script.length);
  assert.deepEqual(l.ws.fake.rejected, []);
});

Deno.test("e2e gate: --on-deny stop ends at the first denial with exit 3", async () => {
  await using l = await lockedWorkspace();
  const r = await runLocked(l, "stop");
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.result.subtype, "error_gate");
  const denials = r.result.denials as Denials;
  assert.equal(denials.length, 1);
  assert.equal(denials[0].tool, "write");
  assert.equal(denials[0].rule, "not_allowed");
  await assertNothingHappened(l);
  // No request after the one that made the forbidden call.
  assert.equal(l.ws.fake.requests.length, 1);
  assert.deepEqual(l.ws.fake.rejected, []);
});

// --- choosing and narrowing a profile -------------------------------------------------

async function initTools(
  args: string[],
  config: Record<string, unknown> = {},
): Promise<{ code: number; stderr: string; tools?: string[]; requests: number }> {
  await using ws = await workspace({ turns: [scriptText("ok")] }, config);
  const r = await ws.run(["run", "-o", "stream-json", ...args, "hi"]);
  const ev = events(r.stdout);
  const init = ev.find((e) => e.type === "init");
  if (r.code === 0) {
    // What the model was offered is what init says.
    const offered = ws.fake.turnRequests()[0].tools?.map((t) => t.function.name).sort() ?? [];
    assert.deepEqual(offered, init?.tools);
  }
  return {
    code: r.code,
    stderr: r.stderr,
    tools: init?.tools as string[] | undefined,
    requests: ws.fake.requests.length,
  };
}

const PROFILES = {
  agents: { fixer: { allowed_tools: ["view", "grep", "edit", "bash"] } },
};

Deno.test("e2e gate: --tools narrows the profile and can never widen it", async () => {
  const narrowed = await initTools(["-a", "fixer", "--tools", "view,bash"], PROFILES);
  assert.equal(narrowed.code, 0, narrowed.stderr);
  assert.deepEqual(narrowed.tools, ["bash", "view"]);

  const coder = await initTools(["--tools", "ls,glob"]);
  assert.equal(coder.code, 0, coder.stderr);
  assert.deepEqual(coder.tools, ["glob", "ls"]);

  // fetch exists but fixer does not offer it: --tools cannot add it.
  const widen = await initTools(["-a", "fixer", "--tools", "view,fetch"], PROFILES);
  assert.equal(widen.code, 2, widen.stderr);
  assert.match(widen.stderr, /--tools: "fetch" not allowed by profile "fixer"/);
  assert.doesNotMatch(widen.stderr, /\n\s+at /);
  assert.equal(widen.requests, 0);
  assert.deepEqual(widen.tools, undefined);

  const readonly = await initTools(["-a", "readonly", "--tools", "view,bash"]);
  assert.equal(readonly.code, 2, readonly.stderr);
  assert.match(readonly.stderr, /"bash" not allowed by profile "readonly"/);
});

Deno.test("e2e gate: permissions.allowed_tools narrows every profile", async () => {
  const config = { ...PROFILES, permissions: { allowed_tools: ["view", "bash", "ls"] } };
  const coder = await initTools([], config);
  assert.equal(coder.code, 0, coder.stderr);
  assert.deepEqual(coder.tools, ["bash", "ls", "view"]);
  const fixer = await initTools(["-a", "fixer"], config);
  assert.equal(fixer.code, 0, fixer.stderr);
  assert.deepEqual(fixer.tools, ["bash", "view"]);
  const readonly = await initTools(["-a", "readonly"], config);
  assert.equal(readonly.code, 0, readonly.stderr);
  assert.deepEqual(readonly.tools, ["ls", "view"]);
  // What the config took away, --tools cannot give back.
  const back = await initTools(["-a", "fixer", "--tools", "view,edit"], config);
  assert.equal(back.code, 2, back.stderr);
  assert.match(back.stderr, /"edit" not allowed/);
});

Deno.test("e2e gate: an unknown -a profile is exit 2 and names the known ones", async () => {
  const r = await initTools(["-a", "nosuch"], PROFILES);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /unknown agent profile "nosuch"; known: coder, fixer, readonly, task/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.equal(r.requests, 0);
});
