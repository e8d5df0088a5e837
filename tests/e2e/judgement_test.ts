/**
 * The agent's judgement end to end: the system prompt (context files, git, stable
 * across turns), auto-summarize, the loop guard and the background title, each
 * through main.ts under narrow Deno flags against the strict fake server.
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
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { contentText, Latch, patchConfig, startHoldProxy } from "./_hold_proxy.ts";

const SMALL = "fake-small";

/** Adds a priced small model; `largeWindow` shrinks the large model's context window. */
function addSmallModel(ws: Workspace, largeWindow?: number) {
  return patchConfig(ws.dir, (c) => {
    const models = c.providers.fake.models;
    if (largeWindow) models[0].context_window = largeWindow;
    models.push({
      id: SMALL,
      name: "Fake small",
      context_window: 64_000,
      default_max_tokens: 1024,
      cost_per_1m_in: 0.5,
      cost_per_1m_out: 1,
    });
    c.models.small = { provider: "fake", model: SMALL };
  });
}

function systemText(req: ParsedRequest): string {
  return req.messages.filter((m) => m.role === "system").map((m) => contentText(m.content))
    .join("\n---\n");
}

type Kind = "title" | "summary" | "large";
function kindOf(req: ParsedRequest): Kind {
  if (req.model !== SMALL) return "large";
  const system = systemText(req);
  if (system.startsWith("Write a title")) return "title";
  if (system.startsWith("You summarize")) return "summary";
  throw new Error(`unexpected small-model request: ${system.slice(0, 80)}`);
}

async function git(cwd: string, ...args: string[]) {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/** A git repo with context files at the root and in `app/`, committed. */
async function contextRepo(ws: Workspace) {
  await Deno.mkdir(`${ws.dir}/app`);
  await Deno.writeTextFile(`${ws.dir}/AGENTS.md`, "ROOT-RULES: run deno test before finishing\n");
  await Deno.writeTextFile(`${ws.dir}/app/AGENTS.md`, "APP-RULES: keep handlers small\n");
  await Deno.writeTextFile(`${ws.dir}/.gitignore`, ".mopac/\n");
  await git(ws.dir, "init", "-q", "-b", "feature-x");
  await git(ws.dir, "add", ".");
  await git(ws.dir, "commit", "-q", "-m", "seed the workspace");
}

async function sessionsList(ws: Workspace, all = false) {
  const r = await ws.run(["sessions", "list", "--json", ...(all ? ["--all"] : [])]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
}

Deno.test("e2e: the system prompt carries nested context files and git facts, byte-identical every turn", async () => {
  await using ws = await workspace({
    turns: [scriptToolCall("glob", { pattern: "*.md" }), scriptText("done")],
  });
  await patchConfig(ws.dir, (c) => (c.providers.fake.system_prompt_prefix = "PREFIX-LINE"));
  await contextRepo(ws);
  const r = await ws.run(["run", "-q", "look around"], {
    cwd: `${ws.dir}/app`,
    perms: { ...ws.perms, run: [...ws.perms.run!, "git"] },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const [first, second] = ws.fake.turnRequests();
  // The provider's prefix is a system message of its own, once, before mopac's prompt.
  const systems = first.messages.filter((m) => m.role === "system").map((m) =>
    contentText(m.content)
  );
  assert.equal(systems.length, 2);
  assert.equal(systems[0], "PREFIX-LINE");
  const prompt = systems[1];
  assert.ok(!prompt.includes("PREFIX-LINE"));
  const root = prompt.indexOf("ROOT-RULES");
  const app = prompt.indexOf("APP-RULES");
  assert.ok(root > 0 && app > root, prompt);
  assert.match(prompt, new RegExp(`Working directory: ${ws.dir}/app`));
  assert.match(
    prompt,
    /Git branch: feature-x\nGit status when the run started [^\n]*:\nclean\nRecent commits:\n[0-9a-f]+ seed the workspace/,
  );
  // Cache friendly: the second turn sends the very same bytes.
  assert.equal(JSON.stringify(second.messages[0]), JSON.stringify(first.messages[0]));
  assert.equal(JSON.stringify(second.messages[1]), JSON.stringify(first.messages[1]));
});

Deno.test("e2e: without --allow-run=git the git block is left out quietly", async () => {
  await using ws = await workspace({ turns: [scriptText("fine")] });
  await contextRepo(ws);
  const r = await ws.run(["run", "-o", "json", "hello"], { // run: bash only
    env: FAKE_ENV,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const prompt = systemText(ws.fake.turnRequests()[0]);
  assert.match(prompt, /ROOT-RULES/);
  assert.doesNotMatch(prompt, /Git branch|Git status|Recent commits/);
});

Deno.test("e2e: a model repeating one call is stopped: loop detected, exit 5", async () => {
  await using ws = await workspace({
    turns: () => scriptToolCall("glob", { pattern: "*.md" }),
  });
  await Deno.writeTextFile(`${ws.dir}/README.md`, "# readme\n");
  const r = await ws.run(["run", "-o", "json", "find the docs"]);
  assert.equal(r.code, 5, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.subtype, "error_agent");
  assert.equal(result.is_error, true);
  assert.equal(result.exit_code, 5);
  assert.match(result.error, /loop detected/);
  // More than 5 identical calls in the last 10: the sixth ends it, no seventh request.
  assert.equal(result.num_turns, 6);
  assert.equal(ws.fake.turnRequests().length, 6);
  assert.deepEqual(ws.fake.rejected, []);
});

/** Usage the fake reports, so the summarize threshold is crossed on purpose. */
const use = (prompt_tokens: number, completion_tokens: number) => ({
  usage: { prompt_tokens, completion_tokens },
});

Deno.test("e2e: a long session crosses the threshold, the small model summarizes, -C continues from the summary", async () => {
  const large: ScriptedTurn[] = [
    scriptToolCall("glob", { pattern: "*.md" }, undefined, use(3_000, 50)),
    // 8,200 + 100 used of 10,000: at most 20% left, so the next request must be summarized.
    scriptToolCall("glob", { pattern: "*.txt" }, undefined, use(8_200, 100)),
    scriptText("FINAL-ANSWER", use(400, 20)),
    scriptText("CONTINUED-ANSWER", use(500, 10)),
  ];
  let next = 0;
  await using ws = await workspace({
    turns: (req) => {
      const kind = kindOf(req);
      if (kind === "title") return scriptText("Docs Listing", use(50, 5));
      if (kind === "summary") {
        return scriptText("SUMMARY-TEXT: listed md and txt files", use(900, 40));
      }
      return large[next++];
    },
  });
  await addSmallModel(ws, 10_000);
  await Deno.writeTextFile(`${ws.dir}/README.md`, "# readme\n");
  const r = await ws.run(["run", "-o", "stream-json", "list the docs, ORIGINAL-TASK"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const reqs = ws.fake.turnRequests().filter((q) => kindOf(q) !== "title");
  assert.deepEqual(reqs.map(kindOf), ["large", "large", "summary", "large"]);

  // The summary is asked of the small model, over a transcript of the whole conversation.
  const ask = reqs[2];
  assert.equal(ask.model, SMALL);
  assert.equal(ask.tools, undefined);
  const transcript = ask.messages.map((m) => contentText(m.content)).join("\n");
  assert.match(transcript, /ORIGINAL-TASK/);
  assert.match(transcript, /tool call glob/);

  // The next large request carries the summary alone, and fits the window easily.
  const after = reqs[3];
  assert.equal(after.model, "fake-model");
  assert.deepEqual(after.messages.map((m) => m.role), ["system", "user"]);
  const summary = contentText(after.messages[1].content);
  assert.match(summary, /^This task continues from an earlier conversation/);
  assert.match(summary, /SUMMARY-TEXT/);
  assert.ok(JSON.stringify(after.messages).length / 4 < 10_000 * 0.8);

  const ev = events(r.stdout);
  const summarized = ev.find((e) => e.type === "summarized");
  assert.ok(summarized, "a summarized event");
  assert.equal(summarized.tokens_before, 8_300);
  const result = ev.at(-1)!;
  assert.equal(result.subtype, "success");
  assert.equal(result.result, "FINAL-ANSWER");
  // The summary's tokens count: 3000 + 8200 + 900 + 400 in, 50 + 100 + 40 + 20 out.
  const usage = result.usage as Record<string, number>;
  assert.equal(usage.input_tokens, 12_500);
  assert.equal(usage.output_tokens, 210);

  // The session records the summary; the JSONL keeps the full history.
  const id = String(result.session_id);
  const shown = await ws.run(["sessions", "show", id, "--json"]);
  assert.equal(shown.code, 0, shown.stderr);
  const session = JSON.parse(shown.stdout);
  const summaryId = session.meta.summary_message_id;
  assert.equal(summaryId, summarized.summary_message_id);
  const texts = JSON.stringify(session.messages);
  assert.match(texts, /ORIGINAL-TASK/);
  assert.match(texts, /\*\.md/);
  assert.match(texts, /SUMMARY-TEXT/);
  assert.match(texts, /FINAL-ANSWER/);
  const jsonl = await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${id}.jsonl`);
  assert.match(jsonl, /ORIGINAL-TASK/);
  assert.match(jsonl, /"name":"glob"/);

  // -C continues from the summary: its first request starts with the summary message.
  const c = await ws.run(["run", "-C", "-o", "json", "and now?"]);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(JSON.parse(c.stdout).result, "CONTINUED-ANSWER");
  const resumed = ws.fake.turnRequests().filter((q) => kindOf(q) === "large").at(-1)!;
  assert.deepEqual(resumed.messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assert.match(contentText(resumed.messages[1].content), /SUMMARY-TEXT/);
  assert.doesNotMatch(JSON.stringify(resumed.messages), /ORIGINAL-TASK/);
  assert.equal(contentText(resumed.messages[3].content), "and now?");
  assert.deepEqual(ws.fake.rejected, []);
});

Deno.test("e2e: a context-length error from the provider summarizes and retries the turn", async () => {
  const large: ScriptedTurn[] = [
    scriptToolCall("glob", { pattern: "*.md" }),
    scriptFault({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    }),
    scriptText("AFTER-OVERFLOW"),
  ];
  let next = 0;
  await using ws = await workspace({
    turns: (req) => {
      const kind = kindOf(req);
      if (kind === "title") return scriptText("T");
      if (kind === "summary") return scriptText("SHORT-SUMMARY");
      return large[next++];
    },
  });
  await addSmallModel(ws);
  const r = await ws.run(["run", "-o", "json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).result, "AFTER-OVERFLOW");
  const reqs = ws.fake.turnRequests().filter((q) => kindOf(q) !== "title");
  assert.deepEqual(reqs.map(kindOf), ["large", "large", "summary", "large"]);
  assert.match(contentText(reqs[3].messages[1].content), /SHORT-SUMMARY/);
});

Deno.test("e2e: a summary the small model cannot write ends the run with exit 5", async () => {
  await using ws = await workspace({
    turns: (req) => {
      const kind = kindOf(req);
      if (kind === "title") return scriptText("T");
      if (kind === "summary") return scriptFault({ status: 400 });
      return scriptToolCall("glob", { pattern: "*.md" }, undefined, use(9_000, 10));
    },
  });
  await addSmallModel(ws, 10_000);
  const r = await ws.run(["run", "-o", "json", "go"]);
  assert.equal(r.code, 5, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.subtype, "error_agent");
  assert.match(result.error, /summarizing the conversation failed/);
});

Deno.test("e2e: options.disable_auto_summarize keeps the whole conversation", async () => {
  const large: ScriptedTurn[] = [
    scriptToolCall("glob", { pattern: "*.md" }, undefined, use(9_500, 10)),
    scriptText("NO-SUMMARY"),
  ];
  let next = 0;
  await using ws = await workspace({
    turns: (req) => (kindOf(req) === "title" ? scriptText("T") : large[next++]),
  }, { options: { disable_auto_summarize: true } });
  await addSmallModel(ws, 10_000);
  const r = await ws.run(["run", "-o", "json", "go"]);
  assert.equal(r.code, 0, r.stderr);
  const reqs = ws.fake.turnRequests();
  assert.ok(!reqs.some((q) => kindOf(q) === "summary"));
  const last = reqs.filter((q) => kindOf(q) === "large").at(-1)!;
  assert.deepEqual(last.messages.map((m) => m.role), ["system", "user", "assistant", "tool"]);
});

/** A workspace whose traffic goes through a hold proxy; a small model is configured. */
async function titleWorkspace(
  large: ScriptedTurn[],
  title: ScriptedTurn,
  hooks: Parameters<typeof startHoldProxy>[1],
) {
  let next = 0;
  const ws = await workspace({
    turns: (req) => (kindOf(req) === "title" ? title : large[next++]),
  });
  const proxy = startHoldProxy(ws.fake.url, hooks);
  await addSmallModel(ws);
  await patchConfig(ws.dir, (c) => (c.providers.fake.base_url = proxy.url));
  const perms = { ...ws.perms, net: [...ws.perms.net!, `127.0.0.1:${proxy.port}`] };
  const close = async () => {
    await proxy.close();
    await ws.close();
  };
  return {
    ws,
    perms,
    close,
    [Symbol.asyncDispose]: close,
  };
}

Deno.test("e2e: with a distinct small model the session gets its title", async () => {
  const titled = new Latch();
  await using t = await titleWorkspace(
    [scriptToolCall("glob", { pattern: "*.md" }), scriptText("answer", { delayMs: 20 })],
    scriptText("Parser Refactor Plan"),
    {
      // The run's second request waits (bounded) until the title's answer has gone out,
      // so the title is written before the run ends; it is never waited for otherwise.
      before: async (req) => {
        if (kindOf(req) === "large" && req.messages.some((m) => m.role === "tool")) {
          await titled.wait(10_000);
        }
      },
      after: (req) => {
        if (kindOf(req) === "title") titled.fire();
      },
    },
  );
  const r = await t.ws.run(["run", "plan the parser refactor\nwith details"], { perms: t.perms });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "answer\n");
  assert.ok(titled.fired, "the title request was made");
  const titleReq = t.ws.fake.turnRequests().find((q) => kindOf(q) === "title")!;
  assert.equal(titleReq.model, SMALL);
  assert.match(JSON.stringify(titleReq.messages), /plan the parser refactor/);
  const [session] = await sessionsList(t.ws);
  assert.equal(session.title, "Parser Refactor Plan");
  assert.deepEqual(t.ws.fake.rejected, []);
});

Deno.test("e2e: a failing title request changes neither the answer nor the exit code", async () => {
  await using t = await titleWorkspace(
    [scriptText("the answer")],
    scriptFault({ status: 400 }),
    {},
  );
  const r = await t.ws.run(["run", "-o", "json", "fix the flaky test\nsecond line"], {
    perms: t.perms,
  });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.subtype, "success");
  assert.equal(result.result, "the answer");
  const [session] = await sessionsList(t.ws);
  assert.equal(session.title, "fix the flaky test");
});

Deno.test("e2e: a title request that hangs never delays the answer", async () => {
  const runEnded = new Latch();
  let heldWhenRunEnded = false;
  let waitedOut = false;
  const titleSent = new Latch();
  await using t = await titleWorkspace([scriptText("quick answer")], scriptText("Too Late"), {
    before: async (req) => {
      // The answer waits until the title request is in flight, so it is surely held.
      if (kindOf(req) === "large") return void (await titleSent.wait(10_000));
      titleSent.fire();
      // Held until the run is over (bounded): had mopac waited for it, the run would not
      // end before the bound.
      if (!(await runEnded.wait(15_000))) {
        waitedOut = true;
        throw new Error("the run waited for its title");
      }
    },
  });
  try {
    const r = await t.ws.run(["run", "-o", "json", "quick one"], { perms: t.perms });
    heldWhenRunEnded = !runEnded.fired;
    runEnded.fire();
    assert.ok(titleSent.fired, "the title request was sent");
    assert.ok(heldWhenRunEnded && !waitedOut);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).result, "quick answer");
    assert.doesNotMatch(r.stderr, /title/);
    const [session] = await sessionsList(t.ws);
    assert.equal(session.title, "quick one");
  } finally {
    runEnded.fire();
  }
});

Deno.test("e2e: without a small model the title is the prompt's first line, and no title request", async () => {
  await using ws = await workspace({ turns: [scriptText("ok")] });
  const r = await ws.run(["run", "-q", "rename the config loader\n\nmore context here"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(ws.fake.turnRequests().length, 1);
  assert.ok(ws.fake.turnRequests()[0].tools?.length);
  const [session] = await sessionsList(ws);
  assert.equal(session.title, "rename the config loader");
});
