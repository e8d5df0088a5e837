/**
 * Issue 7 end to end: provider faults injected by the strict fake server, seen
 * through main.ts under narrow flags. Retries, idle timeouts, fail-fast waits,
 * auth errors, in-band errors and the "never print twice" rule of DESIGN §3.
 */
import assert from "node:assert/strict";
import { scriptFault, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";

type Ev = Record<string, unknown>;

function run(ws: Workspace, args: string[]) {
  return ws.run(["run", ...args]);
}

const ofType = (ev: Ev[], type: string) => ev.filter((e) => e.type === type);

/** Message records of the run's session file, the last record of each id winning. */
async function sessionMessages(ws: Workspace): Promise<Ev[]> {
  const dir = `${ws.dir}/.mopac/sessions`;
  const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  const byId = new Map<string, Ev>();
  for (const line of (await Deno.readTextFile(`${dir}/${files[0].name}`)).split("\n")) {
    if (line.trim() === "") continue;
    const rec = JSON.parse(line);
    if (rec.type === "message") byId.set(rec.message.id, rec.message);
  }
  return [...byId.values()];
}

const textOf = (m: Ev) =>
  (m.parts as Array<{ type: string; text?: string }>).filter((p) => p.type === "text")
    .map((p) => p.text).join("");

Deno.test("faults: 429 with Retry-After: 1 is retried once, at least 1 s later", async () => {
  await using ws = await workspace({
    turns: [
      scriptFault({ status: 429, headers: { "retry-after": "1" } }),
      scriptText("recovered after the rate limit"),
    ],
  });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(ws.fake.requests.length, 2);
  const [first, second] = ws.fake.requests;
  assert.ok(
    second.receivedAt - first.receivedAt >= 1000,
    `second request ${second.receivedAt - first.receivedAt} ms after the first`,
  );
  const retries = ofType(events(r.stdout), "retry");
  assert.equal(retries.length, 1);
  assert.equal(retries[0].attempt, 2);
  assert.ok((retries[0].delay_ms as number) >= 1000, JSON.stringify(retries[0]));
  assert.match(String(retries[0].reason), /rate limited \(HTTP 429\)/);
  assert.equal(events(r.stdout).at(-1)!.result, "recovered after the rate limit");
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("faults: 500 twice then success gives two retry events and exit 0", async () => {
  await using ws = await workspace({
    turns: [scriptFault({ status: 500 }), scriptFault({ status: 500 }), scriptText("third time")],
  });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const retries = ofType(events(r.stdout), "retry");
  assert.deepEqual(retries.map((e) => e.attempt), [2, 3]);
  assert.ok(retries.every((e) => typeof e.delay_ms === "number" && e.delay_ms >= 0));
  assert.equal(ws.fake.requests.length, 3);
  assert.equal(events(r.stdout).at(-1)!.result, "third time");
});

// The text streams in 2 chunks, the call's name in 1, its arguments in 3: a cut after 5 chunks
// (role chunk included) lands inside the arguments, after the text has been shown.
const PREAMBLE = "Let me run the command now.";
const cutScript = () => {
  const call = (extra = {}) =>
    scriptToolCall("bash", { command: "echo ran >> runs.txt" }, "call_run", {
      text: PREAMBLE,
      ...extra,
    });
  return [call({ fault: { cutAfterChunks: 5 } }), call(), scriptText("Done.")];
};

Deno.test("faults: a stream cut inside tool-call arguments runs the tool once, text mode prints the text once", async () => {
  await using ws = await workspace({ turns: cutScript() });
  const r = await run(ws, ["go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Done.\n");
  // The text before the call is progress: shown once on stderr, though it was sent twice.
  assert.equal(r.stderr.split(PREAMBLE).length, 2, r.stderr);
  assert.equal(await Deno.readTextFile(`${ws.dir}/runs.txt`), "ran\n");
  assert.match(r.stderr, /attempt 1 failed \(cut\); retrying in .*the stream was cut/);
  assert.doesNotMatch(r.stderr, /differs/, "a repeated prefix is not a divergence");
  assert.deepEqual(ws.fake.rejected, []);
  // The session keeps the final message once, with one call.
  const assistant = (await sessionMessages(ws)).filter((m) => m.role === "assistant");
  assert.equal(assistant.length, 2);
  assert.equal(textOf(assistant[0]), PREAMBLE);
  const calls = (assistant[0].parts as Array<{ type: string }>).filter((p) =>
    p.type === "tool_call"
  );
  assert.equal(calls.length, 1);
  assert.equal(textOf(assistant[1]), "Done.");
  // The model saw the call and its result once each.
  const last = ws.fake.turnRequests()[2].messages;
  assert.equal(last.filter((m) => m.role === "tool").length, 1);
  assert.equal(last.filter((m) => m.role === "assistant").length, 1);
});

Deno.test("faults: after a cut, stream-json text deltas since the last retry rebuild the message exactly", async () => {
  await using ws = await workspace({ turns: cutScript() });
  const r = await run(ws, ["-o", "stream-json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  const retries = ofType(ev, "retry");
  assert.equal(retries.length, 1);
  assert.match(String(retries[0].reason), /the stream was cut/);
  const id = retries[0].message_id;
  const afterRetry = ev.slice(ev.lastIndexOf(retries[0]) + 1);
  const rebuilt = afterRetry.filter((e) => e.type === "text" && e.message_id === id)
    .map((e) => e.delta).join("");
  assert.equal(rebuilt, PREAMBLE);
  // A consumer ignoring retries would see the partial prefix before it: it really was sent.
  const before = ev.slice(0, ev.indexOf(retries[0]))
    .filter((e) => e.type === "text" && e.message_id === id).map((e) => e.delta).join("");
  assert.equal(before, PREAMBLE);
  const calls = ofType(ev, "tool_call");
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].input, { command: "echo ran >> runs.txt" });
  assert.equal(ofType(ev, "tool_result").length, 1);
  assert.equal(await Deno.readTextFile(`${ws.dir}/runs.txt`), "ran\n");
});

/** stderr without the session's lines at the start and the end of the run. */
const withoutSessionLines = (stderr: string) => stderr.replace(/^mopac: session [^\n]*\n/gm, "");

Deno.test("faults: a retried answer that diverges from the printed text is flagged and starts a new line", async () => {
  const first = "Hello there, this is the first version of the answer.";
  await using ws = await workspace({
    turns: [
      scriptText(first, { fault: { cutAfterChunks: 3 } }),
      scriptText("A different answer."),
    ],
  });
  const r = await run(ws, ["hi"]);
  assert.equal(r.code, 0, r.stderr);
  // stdout: the answer. The screen (stderr): role chunk + 2 content chunks of 16 characters
  // before the cut, the retry, then the new answer whole on a line of its own.
  assert.equal(r.stdout, "A different answer.\n");
  const screen = withoutSessionLines(r.stderr);
  assert.ok(screen.startsWith(`${first.slice(0, 32)}\n`), screen);
  assert.match(screen, /retried response differs from the text already printed\n/);
  assert.ok(screen.endsWith("\nA different answer.\n"), screen);
});

Deno.test("faults: a retried answer that stops short of the printed text is flagged too", async () => {
  const first = "Short answer, and then some more words.";
  await using ws = await workspace({
    turns: [
      scriptText(first, { fault: { cutAfterChunks: 3 } }),
      scriptText("Short answer, and then"),
    ],
  });
  const r = await run(ws, ["hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Short answer, and then\n");
  const screen = withoutSessionLines(r.stderr);
  assert.ok(screen.startsWith(`${first.slice(0, 32)}\n`), screen);
  assert.match(screen, /retried response differs from the text already printed\n/);
  assert.ok(screen.endsWith("\nShort answer, and then\n"), screen);
});

Deno.test("faults: a stalled stream hits the idle timeout (request_timeout 1 s) and is retried", async () => {
  await using ws = await workspace({
    turns: [
      scriptText("partial answer that stalls", { fault: { stallAfterChunks: 2, stallMs: 20_000 } }),
      scriptText("partial answer that stalls no more"),
    ],
  }, { options: { request_timeout: 1 } });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const retries = ofType(events(r.stdout), "retry");
  assert.equal(retries.length, 1);
  assert.match(String(retries[0].reason), /no data from the provider for 1 s/);
  assert.equal(events(r.stdout).at(-1)!.result, "partial answer that stalls no more");
  assert.equal(ws.fake.requests.length, 2);
});

Deno.test("faults: a slow but active stream (a chunk every 300 ms for 3 s) is never killed", async () => {
  const text = "slow and steady wins the race, one small piece at a time.";
  await using ws = await workspace({
    turns: [scriptText(text, { chunkSize: 6, delayMs: 300 })],
  }, { options: { request_timeout: 1 } });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  assert.equal(ofType(ev, "retry").length, 0);
  assert.ok(ofType(ev, "text").length >= 10);
  assert.equal(ev.at(-1)!.result, text);
  assert.equal(ws.fake.requests.length, 1);
});

Deno.test("faults: Retry-After: 3600 fails fast with exit 5 and the reason", async () => {
  await using ws = await workspace({
    turns: [scriptFault({ status: 429, headers: { "retry-after": "3600" } })],
  });
  const started = Date.now();
  const r = await run(ws, ["hi"]);
  const wall = Date.now() - started;
  const afterRequest = Date.now() - ws.fake.requests[0].receivedAt;
  console.log(
    `Retry-After 3600: exit after ${wall} ms wall, ${afterRequest} ms after the request`,
  );
  assert.equal(r.code, 5, r.stderr);
  // One request and no retry: it gave up rather than wait. The bound is only a backstop,
  // far below the 60 s mopac would wait at most, and far above a loaded machine's start.
  assert.equal(ws.fake.requests.length, 1);
  assert.ok(wall < 30_000, `took ${wall} ms`);
  assert.match(r.stderr, /asks to wait 60 min, longer than the 60 s mopac waits/);
  assert.equal(r.stdout, "");
});

Deno.test("faults: 401 exits 5 at once and names the key's source", async () => {
  await using ws = await workspace({ apiKey: "sk-the-right-key", turns: [scriptText("never")] });
  const r = await run(ws, ["hi"]);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /\$FAKE_API_KEY/);
  assert.match(r.stderr, /fake refused the credentials/);
  assert.ok(!r.stderr.includes(FAKE_ENV.FAKE_API_KEY), "the key itself is not printed");
  assert.equal(ws.fake.requests.length, 1, "no retry");
});

Deno.test("faults: a retryable error chunk inside a 200 stream is retried", async () => {
  await using ws = await workspace({
    turns: [
      scriptFault({ errorChunkAfter: 2 }, { text: "working on it, please wait" }),
      scriptText("working on it, done"),
    ],
  });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const retries = ofType(events(r.stdout), "retry");
  assert.equal(retries.length, 1);
  assert.match(String(retries[0].reason), /error inside the stream: The server had an error/);
  assert.equal(events(r.stdout).at(-1)!.result, "working on it, done");
});

Deno.test("faults: a non-retryable error chunk exits 5 with the provider's message", async () => {
  await using ws = await workspace({
    turns: [
      scriptFault({
        errorChunkAfter: 1,
        error: {
          message: "Tool call validation failed: unknown tool 'frobnicate'",
          type: "invalid_request_error",
          code: "tool_use_failed",
        },
      }),
      scriptText("never reached"),
    ],
  });
  const r = await run(ws, ["hi"]);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /Tool call validation failed: unknown tool 'frobnicate'/);
  assert.equal(ws.fake.requests.length, 1);
});

/** Adds fields to the fake model in mopac.json (the fake's URL is only known once it runs). */
async function patchFakeModel(ws: Workspace, fields: Record<string, unknown>) {
  const file = `${ws.dir}/mopac.json`;
  const config = JSON.parse(await Deno.readTextFile(file));
  Object.assign(config.providers.fake.models[0], fields);
  await Deno.writeTextFile(file, JSON.stringify(config, null, 2));
}

const SUMMARY_TEXT = "Task: say hello. Done so far: nothing. Next steps: answer.";

/** Routes title and summary requests by their system prompt; the rest go to `main`. */
function routed(main: (n: number) => ReturnType<typeof scriptText>) {
  let n = 0;
  return (req: { messages: Array<{ role: string; content?: unknown }> }) => {
    const system = String(req.messages.find((m) => m.role === "system")?.content ?? "");
    if (system.startsWith("Write a title")) return scriptText("Greeting task");
    if (system.startsWith("You summarize")) return scriptText(SUMMARY_TEXT);
    return main(n++);
  };
}

const SMALL = {
  models: {
    large: { provider: "fake", model: "fake-model" },
    small: { provider: "fake", model: "fake-small" },
  },
};

/** The recorded context-length bodies (DeepSeek sends JSON as octet-stream). */
const CONTEXT_FIXTURES = [
  "openrouter/error-400-context-length.json",
  "deepseek/error-400-context-length-octet-stream.json",
  "ollama/error-400-context-length-cloud.json",
  "perplexity/error-400-too-many-prompt-tokens.json",
];

Deno.test("faults: recorded context-length errors are summarized away with a small model (exit 0)", async (t) => {
  for (const fixture of CONTEXT_FIXTURES) {
    await t.step(fixture, async () => {
      await using ws = await workspace({
        models: ["fake-model", "fake-small"],
        turns: routed((n) =>
          n === 0 ? scriptFault({ fixture }) : scriptText("hello after the summary")
        ),
      }, SMALL);
      const r = await run(ws, ["-o", "stream-json", "say hello"]);
      assert.equal(r.code, 0, r.stderr);
      const ev = events(r.stdout);
      assert.equal(ofType(ev, "summarized").length, 1);
      assert.equal(ofType(ev, "retry").length, 0, "a context-length error is not retried");
      assert.equal(ev.at(-1)!.result, "hello after the summary");
      const mains = ws.fake.turnRequests().filter((q) => q.model === "fake-model");
      assert.equal(mains.length, 2);
      assert.match(JSON.stringify(mains[1].messages), /summarized to save context/);
      assert.ok(JSON.stringify(mains[1].messages).includes(SUMMARY_TEXT));
      assert.deepEqual(ws.fake.rejected, []);
    });
  }
});

Deno.test("faults: a context-length error with disable_auto_summarize exits 5 naming it", async () => {
  await using ws = await workspace({
    models: ["fake-model", "fake-small"],
    turns: routed(() => scriptFault({ fixture: "openrouter/error-400-context-length.json" })),
  }, { ...SMALL, options: { disable_auto_summarize: true } });
  const r = await run(ws, ["say hello"]);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /does not fit the model's context window/);
  assert.match(r.stderr, /maximum context length is 200000 tokens/);
  const mains = ws.fake.turnRequests().filter((q) => q.model === "fake-model");
  assert.equal(mains.length, 1);
});

Deno.test("faults: cost and cached tokens in turn and result events match hand-computed values", async () => {
  await using ws = await workspace({
    turns: [
      scriptToolCall("bash", { command: "true" }, undefined, {
        usage: { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 400 },
      }),
      scriptText("done", {
        usage: { prompt_tokens: 2000, completion_tokens: 100, cached_tokens: 1500 },
      }),
    ],
  });
  // crush's naming: cost_per_1m_out_cached is the price of cached input READ,
  // cost_per_1m_in_cached the price of cache writes (not billed here).
  await patchFakeModel(ws, { cost_per_1m_out_cached: 0.25, cost_per_1m_in_cached: 1.25 });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  // Turn 1: 600 uncached × $1 + 400 cached × $0.25 + 500 out × $2 = $1700 per 1M.
  // Turn 2: 500 × $1 + 1500 × $0.25 + 100 × $2 = $1075 per 1M.
  const turns = ofType(ev, "turn");
  assert.equal(turns.length, 2);
  assert.deepEqual(turns[0].usage, {
    input_tokens: 1000,
    output_tokens: 500,
    cached_input_tokens: 400,
  });
  assert.ok(Math.abs((turns[0].cost_usd as number) - 0.0017) < 1e-12, String(turns[0].cost_usd));
  assert.ok(Math.abs((turns[1].cost_usd as number) - 0.001075) < 1e-12);
  const result = ev.at(-1)!;
  assert.deepEqual(result.usage, {
    input_tokens: 3000,
    output_tokens: 600,
    cached_input_tokens: 1900,
  });
  assert.ok(Math.abs((result.cost_usd as number) - 0.002775) < 1e-12, String(result.cost_usd));
  // The index has the same totals.
  const list = await ws.run(["sessions", "list", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout) as Array<Record<string, number>>;
  assert.equal(rows.length, 1);
  assert.ok(Math.abs(rows[0].cost_usd - 0.002775) < 1e-12, JSON.stringify(rows[0]));
  assert.equal(rows[0].cached_input_tokens, 1900);
  assert.equal(rows[0].input_tokens, 3000);
});

Deno.test("faults: a provider that sends no usage gets an estimate marked as estimated", async () => {
  await using ws = await workspace({ turns: [scriptText("no usage here", { usage: null })] });
  const r = await run(ws, ["-o", "stream-json", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const result = events(r.stdout).at(-1)!;
  const usage = result.usage as Record<string, unknown>;
  assert.equal(usage.estimated, true);
  assert.ok((usage.input_tokens as number) > 0 && (usage.output_tokens as number) > 0);
  assert.ok((result.cost_usd as number) > 0);
});
