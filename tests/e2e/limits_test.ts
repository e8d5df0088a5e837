/**
 * Limits end to end: each of --max-turns, --max-tokens, --max-cost and --timeout stops
 * a run with exit 4 and the right result subtype, the session stays resumable
 * (`run -C` goes on with only valid requests), and limits from a profile and from
 * config `limits` apply, with flags winning.
 */
import assert from "node:assert/strict";
import {
  type ParsedRequest,
  type ScriptedTurn,
  scriptFault,
  scriptText,
  scriptToolCall,
} from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

/** A model that keeps calling a cheap tool; `usage` fixes what each turn costs. */
function busyTurn(usage?: ScriptedTurn["usage"]): ScriptedTurn {
  return scriptToolCall("ls", { path: "." }, undefined, usage === undefined ? {} : { usage });
}

async function run(ws: Workspace, args: string[]) {
  const r = await ws.run(["run", "-o", "stream-json", ...args]);
  const ev = events(r.stdout);
  return { ...r, ev, result: ev.at(-1)! };
}

function textOf(req: ParsedRequest): string {
  return JSON.stringify(req.messages);
}

/**
 * Runs the prompt under `flags`, expects exit 4 with `subtype` after `requests`
 * model requests, then continues the session without limits and expects success.
 */
async function stopsThenResumes(
  opts: {
    script: ScriptedTurn[];
    flags: string[];
    subtype: string;
    requests: number;
    error: RegExp;
  },
): Promise<{ first: Awaited<ReturnType<typeof run>> }> {
  await using ws = await workspace({ turns: [...opts.script, scriptText("resumed fine")] });
  const first = await run(ws, [...opts.flags, "keep working"]);
  assert.equal(first.code, 4, first.stderr);
  assert.equal(first.result.type, "result");
  assert.equal(first.result.subtype, opts.subtype);
  assert.equal(first.result.exit_code, 4);
  assert.equal(first.result.is_error, true);
  assert.match(String(first.result.error), opts.error);
  assert.equal(ws.fake.requests.length, opts.requests);
  assert.doesNotMatch(first.stderr, /\n\s+at /, "no stack trace");

  // The session was saved and continues.
  const again = await run(ws, ["-C", "go on"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.result.subtype, "success");
  assert.equal(again.result.result, "resumed fine");
  assert.equal(again.result.session_id, first.result.session_id);
  assert.deepEqual(ws.fake.rejected, []);
  const resumed = ws.fake.turnRequests().at(-1)!;
  assert.match(textOf(resumed), /keep working/);
  assert.match(textOf(resumed), /go on/);
  return { first };
}

Deno.test("e2e limits: --max-turns stops with exit 4 (error_max_turns) and resumes", async () => {
  const { first } = await stopsThenResumes({
    script: [busyTurn(), busyTurn(), busyTurn(), busyTurn()],
    flags: ["--max-turns", "2"],
    subtype: "error_max_turns",
    requests: 2,
    error: /max turns reached \(2\)/,
  });
  assert.equal(first.result.num_turns, 2);
});

Deno.test("e2e limits: --max-tokens stops with exit 4 (error_budget) and resumes", async () => {
  const usage = { prompt_tokens: 1000, completion_tokens: 100 };
  const { first } = await stopsThenResumes({
    script: [busyTurn(usage), busyTurn(usage), busyTurn(usage)],
    flags: ["--max-tokens", "2000"],
    subtype: "error_budget",
    requests: 2,
    error: /max tokens reached \(2200 of 2000\)/,
  });
  const u = first.result.usage as { input_tokens: number; output_tokens: number };
  assert.equal(u.input_tokens + u.output_tokens, 2200);
});

Deno.test("e2e limits: --max-cost stops with exit 4 (error_budget) and resumes", async () => {
  // $1 per 1M in, $2 per 1M out (see tests/_support/workspace.ts): 0.001 + 0.0002 = $0.0012 a turn.
  const usage = { prompt_tokens: 1000, completion_tokens: 100 };
  const { first } = await stopsThenResumes({
    script: [busyTurn(usage), busyTurn(usage), busyTurn(usage)],
    flags: ["--max-cost", "0.002"],
    subtype: "error_budget",
    requests: 2,
    error: /max cost reached \(\$0\.0024 of \$0\.002\)/,
  });
  assert.ok(Math.abs((first.result.cost_usd as number) - 0.0024) < 1e-12);
});

Deno.test("e2e limits: --timeout interrupts an in-flight request (exit 4, error_budget) and resumes", async () => {
  // The model starts answering, then stalls. Left alone it would finish with this
  // text and exit 0 after the stall: exit 4 proves the request itself was cut. The
  // timeout leaves the first turn (a request and an `ls`) time even on a loaded machine.
  const stalled = scriptFault({ stallAfterChunks: 2, stallMs: 120_000 }, {
    text: "a partial answer that never ends",
    chunkSize: 4,
  });
  const { first } = await stopsThenResumes({
    script: [busyTurn(), stalled],
    flags: ["--timeout", "8s"],
    subtype: "error_budget",
    requests: 2,
    error: /timeout reached \(8 s\)/,
  });
  assert.equal(first.result.num_turns, 1);
});

// --- limits from a profile and from config ----------------------------------------

async function limitedBy(
  config: Record<string, unknown>,
  args: string[],
): Promise<{ code: number; subtype: unknown; requests: number; stderr: string }> {
  await using ws = await workspace(
    { turns: [busyTurn(), busyTurn(), busyTurn(), scriptText("done")] },
    config,
  );
  const r = await run(ws, [...args, "work"]);
  assert.deepEqual(ws.fake.rejected, []);
  return {
    code: r.code,
    subtype: r.result?.subtype,
    requests: ws.fake.requests.length,
    stderr: r.stderr,
  };
}

const CAPPED = { agents: { capped: { allowed_tools: ["ls", "view"], max_turns: 1 } } };

Deno.test("e2e limits: a profile's max_turns applies; the flag wins over it", async () => {
  const byProfile = await limitedBy(CAPPED, ["-a", "capped"]);
  assert.equal(byProfile.code, 4, byProfile.stderr);
  assert.equal(byProfile.subtype, "error_max_turns");
  assert.equal(byProfile.requests, 1);

  const byFlag = await limitedBy(CAPPED, ["-a", "capped", "--max-turns", "10"]);
  assert.equal(byFlag.code, 0, byFlag.stderr);
  assert.equal(byFlag.requests, 4);
});

Deno.test("e2e limits: config limits apply; the profile and the flag win over them", async () => {
  const config = {
    limits: { max_turns: 2 },
    agents: { roomy: { allowed_tools: ["ls"], max_turns: 10 } },
  };
  const byConfig = await limitedBy(config, []);
  assert.equal(byConfig.code, 4, byConfig.stderr);
  assert.equal(byConfig.subtype, "error_max_turns");
  assert.equal(byConfig.requests, 2);

  const byProfile = await limitedBy(config, ["-a", "roomy"]);
  assert.equal(byProfile.code, 0, byProfile.stderr);
  assert.equal(byProfile.requests, 4);

  const byFlag = await limitedBy(config, ["--max-turns", "3"]);
  assert.equal(byFlag.code, 4, byFlag.stderr);
  assert.equal(byFlag.requests, 3);

  // A cost cap in config stops the run too: $0.0012 a turn against $0.002.
  const usage = { prompt_tokens: 1000, completion_tokens: 100 };
  await using ws = await workspace(
    { turns: [busyTurn(usage), busyTurn(usage), busyTurn(usage)] },
    { limits: { max_cost: 0.002 } },
  );
  const r = await run(ws, ["work"]);
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.result.subtype, "error_budget");
  assert.equal(ws.fake.requests.length, 2);
});

Deno.test("e2e limits: a bad limit is exit 2 naming its source", async () => {
  const flag = await limitedBy({}, ["--max-turns", "zero"]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--max-turns.*whole number.*zero/);
  assert.equal(flag.requests, 0);
  const cfg = await limitedBy({ agents: { x: { allowed_tools: ["ls"], timeout: "soon" } } }, [
    "-a",
    "x",
  ]);
  assert.equal(cfg.code, 2);
  assert.match(cfg.stderr, /mopac\.json:\d+:\d+: agents\.x\.timeout: invalid duration "soon"/);
  assert.equal(cfg.requests, 0);
});
