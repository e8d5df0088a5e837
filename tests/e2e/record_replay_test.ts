/**
 * Issue 7 end to end: `--record` a multi-step run (bash, view, edit, answer) against the
 * strict fake server, then `--replay` it in a fresh copy of the workspace with no
 * --allow-net at all: same stdout, exit code and files. A cassette that lacks what
 * the run asks for fails clearly with exit 5.
 */
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { type Permissions, runMopac } from "../_support/run_mopac.ts";
import { BASH_RUN, JAIL_ENV_VARS } from "../_support/jail.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";

const PROMPT = "fix the greeting";
const ANSWER = "Fixed the greeting in greet.txt; the check passes.";

const script = () => [
  scriptToolCall("bash", { command: "cat greet.txt; echo checked > check.log" }, "call_bash", {
    text: "Let me look at the file first.",
  }),
  scriptToolCall("view", { file_path: "greet.txt" }, "call_view"),
  scriptToolCall(
    "edit",
    { file_path: "greet.txt", old_string: "Helo", new_string: "Hello" },
    "call_edit",
  ),
  scriptText(ANSWER),
];

/** Every file under `dir` except mopac's data dir, path → content. */
async function files(dir: string, sub = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of Deno.readDir(`${dir}/${sub}`)) {
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (rel === ".mopac") continue;
    if (e.isDirectory) Object.assign(out, await files(dir, rel));
    else out[rel] = await Deno.readTextFile(`${dir}/${rel}`);
  }
  return out;
}

/** Narrow flags for a replay: the workspace and the cassette, and no network at all. */
function offline(dir: string, cassette: string): Permissions {
  return {
    read: [dir, cassette],
    write: [dir],
    run: BASH_RUN,
    env: ["FAKE_API_KEY", "HOME", "PATH", "NO_COLOR", "MOPAC_*", ...JAIL_ENV_VARS],
  };
}

interface Recorded {
  cassette: string;
  /** A copy of the workspace taken before the recorded run. */
  pristine: string;
  /** The recorded run's workspace after it ran. */
  after: string;
  stdout: string;
  code: number;
  cleanup(): Promise<void>;
}

async function record(): Promise<Recorded> {
  await using ws = await workspace({ turns: script() });
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-cassette-" }));
  const cassette = `${tmp}/run.cassette.jsonl`;
  const pristine = `${tmp}/pristine`;
  const after = `${tmp}/after`;
  try {
    await Deno.writeTextFile(`${ws.dir}/greet.txt`, "Helo, world\n");
    await cp(ws.dir, pristine, { recursive: true });
    const r = await ws.run(["run", "--record", cassette, PROMPT], {
      perms: { ...ws.perms, read: [ws.dir, tmp], write: [ws.dir, tmp] },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ws.fake.rejected, []);
    assert.equal(ws.fake.turnRequests().length, 4);
    await cp(ws.dir, after, { recursive: true });
    return {
      cassette,
      pristine,
      after,
      stdout: r.stdout,
      code: r.code,
      cleanup: () => Deno.remove(tmp, { recursive: true }),
    };
  } catch (err) {
    await Deno.remove(tmp, { recursive: true });
    throw err;
  }
}

/** A fresh copy of the pristine workspace; its mopac.json still names the (closed) fake. */
async function freshCopy(rec: Recorded, name: string): Promise<string> {
  const dir = `${rec.pristine}-${name}`;
  await cp(rec.pristine, dir, { recursive: true });
  return dir;
}

Deno.test("record/replay: a replay with no --allow-net gives the same output, exit code and files", async () => {
  const rec = await record();
  try {
    // stdout: the final answer; the text before the tool call was progress on stderr.
    assert.equal(rec.stdout, `${ANSWER}\n`);
    const recordedFiles = await files(rec.after);
    assert.equal(recordedFiles["greet.txt"], "Hello, world\n");
    assert.equal(recordedFiles["check.log"], "checked\n");

    const dir = await freshCopy(rec, "replay");
    const r = await runMopac(["run", "--replay", rec.cassette, PROMPT], {
      cwd: dir,
      perms: offline(dir, rec.cassette),
      env: FAKE_ENV,
    });
    assert.equal(r.code, rec.code, r.stderr);
    assert.equal(r.stdout, rec.stdout);
    assert.deepEqual(await files(dir), recordedFiles);
  } finally {
    await rec.cleanup();
  }
});

Deno.test("record/replay: the cassette holds every request and response, and no secret", async () => {
  const rec = await record();
  try {
    const text = await Deno.readTextFile(rec.cassette);
    const entries = text.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(entries.length, 4);
    for (const e of entries) {
      assert.equal(e.request.path, "/v1/chat/completions");
      assert.equal(e.request.body.model, "fake-model");
      assert.equal(e.response.status, 200);
      assert.match(e.response.body, /data: \[DONE\]/);
    }
    assert.ok(!text.includes(FAKE_ENV.FAKE_API_KEY), "the API key is not in the cassette");
    assert.ok(!/authorization|bearer/i.test(text), "no Authorization value in the cassette");
  } finally {
    await rec.cleanup();
  }
});

Deno.test("record/replay: a run that asks for more than the cassette holds fails clearly", async () => {
  const rec = await record();
  try {
    // The cassette without its last response: the run asks for a 4th request it lacks.
    const short = `${rec.cassette}.short`;
    const lines = (await Deno.readTextFile(rec.cassette)).trim().split("\n");
    await Deno.writeTextFile(short, lines.slice(0, 3).join("\n") + "\n");
    const dir = await freshCopy(rec, "short");
    const r = await runMopac(["run", "--replay", short, PROMPT], {
      cwd: dir,
      perms: offline(dir, short),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /holds 3 request\(s\); the run asked for request #4/);
  } finally {
    await rec.cleanup();
  }
});

Deno.test("record/replay: a different prompt is not served the recorded answers", async () => {
  const rec = await record();
  try {
    const dir = await freshCopy(rec, "other");
    const r = await runMopac(["run", "--replay", rec.cassette, "delete every file"], {
      cwd: dir,
      perms: offline(dir, rec.cassette),
      env: FAKE_ENV,
    });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /cassette/);
    assert.match(r.stderr, /request #1/);
    // Nothing ran: the files are as they were.
    assert.deepEqual(await files(dir), await files(rec.pristine));
  } finally {
    await rec.cleanup();
  }
});
