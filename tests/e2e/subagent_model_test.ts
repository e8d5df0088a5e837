/**
 * A sub-agent whose profile names its own model is wired like the run itself: its
 * host and key variable are in `mopac sandbox`'s flags (and the run works under
 * exactly those), its provider has the configured idle timeout, and `--record` /
 * `--replay` cover its requests, so an offline replay gives the same answers.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall, startFakeOpenAI } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";
import { patchConfig } from "./_hold_proxy.ts";

const ENV = { ...FAKE_ENV, SUB_KEY: "sk-sub-secret-654321" };
const TOOLS = ["--tools", "agent,view"];
const PROMPT = "ask a helper";

function parseFlags(line: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const flag of line.trim().split(/\s+/)) {
    const m = /^(--allow-[a-z]+)(?:=(.*))?$/.exec(flag);
    assert.ok(m, `not a permission flag: ${flag}`);
    out.set(m[1], m[2] === undefined ? [] : m[2].split(","));
  }
  return out;
}

Deno.test("e2e: a sub-agent on its own model: sandbox flags, idle timeout, record and replay", async () => {
  // The child's first attempt stalls after two chunks; only an idle timeout ends it early.
  const sub = await startFakeOpenAI({
    turns: [
      scriptText("CHILD-REPORT", { fault: { stallAfterChunks: 2, stallMs: 20_000 } }),
      scriptText("CHILD-REPORT"),
    ],
  });
  await using ws = await workspace({
    turns: [scriptToolCall("agent", { prompt: "CHILD: report" }), scriptText("PARENT-DONE")],
  }, { options: { request_timeout: 1 } });
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-sub-cassette-" }));
  const cassette = `${tmp}/run.cassette.jsonl`;
  try {
    await patchConfig(ws.dir, (c) => {
      c.providers.sub = {
        type: "openai-compat",
        base_url: sub.url,
        api_key: "$SUB_KEY",
        models: [{
          id: "sub-model",
          name: "Sub",
          context_window: 64_000,
          default_max_tokens: 1024,
        }],
      };
      c.agents = { task: { model: "sub/sub-model" } };
    });

    // The sub-agent's host and key are what the run needs besides the large model's.
    const printed = await ws.run(["sandbox", ...TOOLS, "--record", cassette], {
      perms: { ...ws.perms, env: [...Object.keys(ENV), "MOPAC_*"] },
      env: ENV,
    });
    assert.equal(printed.code, 0, printed.stderr);
    const flags = parseFlags(printed.stdout);
    assert.deepEqual(
      flags.get("--allow-net"),
      [`127.0.0.1:${ws.fake.port}`, `127.0.0.1:${sub.port}`].sort(),
    );
    assert.deepEqual(flags.get("--allow-env"), ["FAKE_API_KEY", "MOPAC_*", "SUB_KEY"]);
    // Without the `agent` tool no sub-agent runs, and its host is not asked for.
    const without = await ws.run(["sandbox", "--tools", "view"], {
      perms: { ...ws.perms, env: [...Object.keys(ENV), "MOPAC_*"] },
      env: ENV,
    });
    assert.equal(without.code, 0, without.stderr);
    assert.deepEqual(parseFlags(without.stdout).get("--allow-net"), [`127.0.0.1:${ws.fake.port}`]);

    // Recorded under exactly the printed flags; the child's stalled attempt is cut short.
    const recorded = await ws.run([
      "run",
      "-o",
      "stream-json",
      ...TOOLS,
      "--record",
      cassette,
      PROMPT,
    ], { perms: {}, flags: printed.stdout.trim().split(/\s+/), env: ENV });
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(recorded.stderr, /sub\/sub-model: attempt 1 failed \(stalled\)/);
    assert.deepEqual([...ws.fake.rejected, ...sub.rejected], []);
    assert.deepEqual(sub.turnRequests().map((r) => r.model), ["sub-model", "sub-model"]);
    assert.equal(ws.fake.turnRequests().length, 2);
    const child = (stdout: string) => {
      const ev = events(stdout);
      const result = ev.find((e) => e.type === "tool_result" && e.name === "agent")!;
      return { output: result.output, is_error: result.is_error, answer: ev.at(-1)!.result };
    };
    assert.deepEqual(child(recorded.stdout), {
      output: "CHILD-REPORT",
      is_error: false,
      answer: "PARENT-DONE",
    });
    const models = (await Deno.readTextFile(cassette)).trim().split("\n")
      .map((l) => JSON.parse(l).request.body.model);
    assert.deepEqual(models, ["fake-model", "sub-model", "sub-model", "fake-model"]);
    assert.ok(!(await Deno.readTextFile(cassette)).includes(ENV.SUB_KEY));

    // Replayed with both servers gone and no network at all: the child answers the same.
    await sub.close();
    await ws.fake.close();
    const replayed = await ws.run([
      "run",
      "-o",
      "stream-json",
      ...TOOLS,
      "--replay",
      cassette,
      PROMPT,
    ], {
      perms: { read: [ws.dir, tmp], write: [ws.dir], env: [...Object.keys(ENV), "MOPAC_*"] },
      env: ENV,
    });
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.deepEqual(child(replayed.stdout), child(recorded.stdout));
  } finally {
    await sub.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});
