/**
 * The data dir failing mid-run (issue 16): a full disk, a session file made
 * unwritable, the data dir removed. Each run ends with exit 6 and a complete
 * `result` (subtype error_tool, the real session id, its turns and usage, the file
 * named), and the next run works: the same session continues once the disk takes
 * writes again; after the data dir was removed a new one is made.
 *
 * The disk is made to fail for real where this machine allows it (a small tmpfs, the
 * immutable flag: both need root) and through tests/e2e/_failing_disk.ts otherwise,
 * which fails the store's own file writes at the OS call; a test that cannot run its
 * real variant says so on stderr.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import type { ParsedRequest } from "../_support/fake_openai.ts";
import { cleanDenoEnv, denoFlags, events, MAIN } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace as fakeWorkspace } from "../_support/workspace.ts";

const FAILING_DISK = new URL("./_failing_disk.ts", import.meta.url).pathname;
const LONG_ANSWER = "All checked. ".repeat(2_000);

async function succeeds(cmd: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

/** Can this process mount a tmpfs (root, or CAP_SYS_ADMIN)? */
async function tmpfsWorks(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  const dir = await Deno.makeTempDir();
  try {
    const ok = await succeeds("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]);
    if (ok) await succeeds("umount", [dir]);
    return ok;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Does `chattr +i` stop writes to a file already open (what a read-only session file means here)? */
async function immutableWorks(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/probe`;
  const file = await Deno.open(path, { create: true, write: true, append: true });
  try {
    if (!(await succeeds("chattr", ["+i", path]))) return false;
    try {
      file.writeSync(new Uint8Array([10]));
      return false;
    } catch {
      return true;
    } finally {
      await succeeds("chattr", ["-i", path]);
    }
  } finally {
    file.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const TMPFS = await tmpfsWorks();
const IMMUTABLE = await immutableWorks();
if (!TMPFS) {
  console.error("note: cannot mount a tmpfs here (needs root); the full-disk test injects ENOSPC");
}
if (!IMMUTABLE) {
  console.error("note: chattr +i is not available here; the read-only test injects EPERM");
}

/**
 * A workspace whose runs: "go" → a `view` call, then (after `fault()` ran) a long final
 * answer, which the store cannot write; any other prompt → a short answer.
 */
async function workspace(fault: () => void): Promise<Workspace> {
  let faulted = false;
  return await fakeWorkspace({
    turns: (req: ParsedRequest) => {
      const last = req.messages.at(-1)!;
      if (last.role === "tool") {
        if (!faulted) fault();
        faulted = true;
        return scriptText(LONG_ANSWER, { chunkSize: 2_000 });
      }
      if (last.role === "user" && JSON.stringify(last.content).includes('"go"')) {
        return scriptToolCall("view", { file_path: "mopac.json" });
      }
      return scriptText("resumed");
    },
  });
}

interface Run {
  code: number;
  result: Record<string, unknown>;
  stderr: string;
}

/** mopac (or mopac on the failing disk, when `failing` is set) with the workspace's flags. */
async function run(
  ws: Workspace,
  args: string[],
  failing?: { trigger?: string; matching?: string; as: "ENOSPC" | "EPERM" },
): Promise<Run> {
  const perms = {
    ...ws.perms,
    env: [
      ...(ws.perms.env as string[]),
      "FAIL_WRITES_WHEN",
      "FAIL_WRITES_MATCHING",
      "FAIL_WRITES_AS",
    ],
  };
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...denoFlags(perms), failing ? FAILING_DISK : MAIN, "run", "-o", "json", ...args],
    cwd: ws.dir,
    clearEnv: true,
    env: {
      ...cleanDenoEnv(),
      ...FAKE_ENV,
      ...(failing?.trigger ? { FAIL_WRITES_WHEN: failing.trigger } : {}),
      ...(failing?.matching ? { FAIL_WRITES_MATCHING: failing.matching } : {}),
      ...(failing ? { FAIL_WRITES_AS: failing.as } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const [result] = events(stdout);
  assert.ok(result, `no result (exit ${out.code}): ${stderr}`);
  // A write nobody awaited must not surface as a crash after the result.
  assert.doesNotMatch(stderr, /Uncaught|internal error/);
  return { code: out.code, result, stderr };
}

/** The failed run's result is complete: exit 6, its session, two turns, usage and cost. */
function assertStorageEnding(r: Run, osMessage: RegExp): string {
  assert.equal(r.code, 6, r.stderr);
  const res = r.result;
  assert.deepEqual([res.subtype, res.exit_code, res.is_error], ["error_tool", 6, true]);
  const id = String(res.session_id);
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(res.num_turns, 2);
  assert.ok((res.usage as { input_tokens: number }).input_tokens > 0);
  assert.ok(Number(res.cost_usd) > 0);
  assert.match(String(res.error), new RegExp(`cannot write the session file \\S*${id}\\.jsonl: `));
  assert.match(String(res.error), osMessage);
  assert.doesNotMatch(r.stderr, /internal error/);
  return id;
}

/** The next run continues the session: same id, its earlier messages in the request. */
async function assertResumes(ws: Workspace, id: string, extra: string[] = []): Promise<void> {
  const next = await run(ws, [...extra, "-s", id, "go on"]);
  assert.equal(next.code, 0, next.stderr);
  assert.deepEqual([next.result.session_id, next.result.result], [id, "resumed"]);
  const sent = ws.fake.turnRequests().at(-1)!;
  assert.ok(
    sent.messages.some((m: { role: string }) => m.role === "tool"),
    "the earlier tool call is in the history",
  );
}

Deno.test({
  name: "e2e storage: disk full mid-run on a real tmpfs: exit 6, complete result, resumable",
  ignore: !TMPFS,
  fn: async () => {
    let data = "";
    const filler = () => `${data}/filler`;
    const ws = await workspace(() => {
      // Fill the disk to the last block.
      const f = Deno.openSync(filler(), { create: true, write: true });
      try {
        for (const chunk = new Uint8Array(4096);;) f.writeSync(chunk);
      } catch {
        // full
      } finally {
        f.close();
      }
    });
    data = `${ws.dir}/data`;
    await Deno.mkdir(data);
    assert.ok(await succeeds("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", data]));
    try {
      const r = await run(ws, ["--data-dir", data, "go"]);
      const id = assertStorageEnding(r, /No space left on device/);
      await Deno.remove(filler());
      await assertResumes(ws, id, ["--data-dir", data]);
    } finally {
      await succeeds("umount", [data]);
      await ws.close();
    }
  },
});

Deno.test("e2e storage: disk full mid-run (injected ENOSPC): exit 6, complete result, resumable", async () => {
  let trigger = "";
  const ws = await workspace(() => Deno.writeTextFileSync(trigger, ""));
  trigger = `${ws.dir}/disk-full`;
  try {
    const r = await run(ws, ["go"], { trigger, as: "ENOSPC" });
    const id = assertStorageEnding(r, /No space left on device/);
    await Deno.remove(trigger);
    await assertResumes(ws, id);
  } finally {
    await ws.close();
  }
});

Deno.test("e2e storage: session file made read-only mid-run: exit 6, complete result, resumable", async () => {
  let sessionFile = "";
  let trigger = "";
  const ws = await workspace(() => {
    const dir = `${trigger.replace(/\/[^/]*$/, "")}/.mopac/sessions`;
    const [name] = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".jsonl"));
    sessionFile = `${dir}/${name.name}`;
    if (IMMUTABLE) {
      const r = new Deno.Command("chattr", { args: ["+i", sessionFile] }).outputSync();
      assert.ok(r.success);
    } else {
      Deno.writeTextFileSync(trigger, "");
    }
  });
  trigger = `${ws.dir}/read-only`;
  try {
    const r = await run(ws, ["go"], IMMUTABLE ? undefined : { trigger, as: "EPERM" });
    const id = assertStorageEnding(r, /Operation not permitted/);
    assert.ok(sessionFile.endsWith(`${id}.jsonl`));
    if (IMMUTABLE) {
      assert.ok(new Deno.Command("chattr", { args: ["-i", sessionFile] }).outputSync().success);
    } else await Deno.remove(trigger);
    await assertResumes(ws, id);
  } finally {
    if (IMMUTABLE && sessionFile) {
      new Deno.Command("chattr", { args: ["-i", sessionFile] }).outputSync();
    }
    await ws.close();
  }
});

Deno.test("e2e storage: data dir removed mid-run: exit 6, complete result; the next run works", async () => {
  let data = "";
  const ws = await workspace(() => Deno.removeSync(data, { recursive: true }));
  data = `${ws.dir}/.mopac`;
  try {
    const r = await run(ws, ["go"]);
    const id = assertStorageEnding(r, /the file was removed/);
    // The session went with the data dir; a new run makes a new one.
    const next = await run(ws, ["hello"]);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.result.result, "resumed");
    assert.notEqual(next.result.session_id, id);
  } finally {
    await ws.close();
  }
});

Deno.test("e2e storage: a tool's file-change record failing in the background ends the run with exit 6", async () => {
  const ws = await fakeWorkspace({
    turns: [
      scriptToolCall("write", { file_path: "out.txt", content: "written" }),
      scriptText("never asked"),
    ],
  });
  try {
    // Only the write tool's record of its change fails: nobody awaits that write.
    const r = await run(ws, ["write it"], { matching: '"type":"file_change"', as: "ENOSPC" });
    assert.equal(r.code, 6, r.stderr);
    assert.deepEqual([r.result.subtype, r.result.num_turns], ["error_tool", 1]);
    assert.match(String(r.result.error), /No space left on device/);
    assert.equal(await Deno.readTextFile(`${ws.dir}/out.txt`), "written");
    assert.equal(ws.fake.turnRequests().length, 1);
  } finally {
    await ws.close();
  }
});
