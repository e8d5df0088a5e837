import assert from "node:assert/strict";
import type { Message, Part } from "../../src/domain/message.ts";
import { INTERRUPTED_RESULT, repairForRequest } from "../../src/session/mod.ts";
import { checkOpenAiSequence } from "./_openai_check.ts";
import { call, finish, msg, result, rng, text } from "./_helpers.ts";

/** Repairs, checks the output is API-valid and that the input was not touched. */
function repaired(history: Message[]): Message[] {
  const before = structuredClone(history);
  const out = repairForRequest(history);
  assert.deepEqual(history, before, "stored history untouched");
  checkOpenAiSequence(out);
  assert.deepEqual(repairForRequest(out), out, "idempotent");
  return out;
}

const shape = (ms: Message[]) =>
  ms.map((m) =>
    `${m.role}:` +
    m.parts.filter((p) => p.type !== "finish").map((p) =>
      p.type === "tool_call"
        ? `call(${p.id})`
        : p.type === "tool_result"
        ? `result(${p.tool_call_id}${p.content === INTERRUPTED_RESULT ? ",interrupted" : ""})`
        : p.type
    ).join(",")
  );

Deno.test("the checker itself rejects what a strict server rejects", () => {
  assert.throws(() => checkOpenAiSequence([msg("assistant", [call("a")])]), /not answered/);
  assert.throws(() => checkOpenAiSequence([msg("tool", [result("a")])]), /not preceded/);
  assert.throws(() => checkOpenAiSequence([msg("assistant", [])]), /without content/);
  assert.throws(
    () => checkOpenAiSequence([msg("assistant", [call("a")]), msg("user", [text("x")])]),
    /not answered/,
  );
});

Deno.test("a valid history passes through unchanged (same objects)", () => {
  const h = [
    msg("system", [text("sys")]),
    msg("user", [text("hi")]),
    msg("assistant", [text("let me look"), call("a"), call("b"), finish("tool_calls")]),
    msg("tool", [result("a"), result("b")]),
    msg("assistant", [text("done"), finish()]),
  ];
  const out = repaired(h);
  assert.equal(out.length, h.length);
  out.forEach((m, i) => assert.equal(m, h[i]));
});

Deno.test("orphan tool results are dropped", () => {
  const out = repaired([
    msg("user", [text("hi")]),
    msg("tool", [result("ghost")]), // no call before it
    msg("assistant", [call("a"), finish("tool_calls")]),
    msg("tool", [result("zzz"), result("a"), result("a", "again")]), // unknown id, duplicate
    msg("user", [text("next")]),
    msg("tool", [result("a")]), // answers a call of an earlier block
  ]);
  assert.deepEqual(shape(out), ["user:text", "assistant:call(a)", "tool:result(a)", "user:text"]);
  assert.equal((out[2].parts[0] as { content: string }).content, "ok");
});

Deno.test("a call without a result gets a synthetic interrupted result right after it", () => {
  const asst = msg("assistant", [text("running"), call("a", "bash"), finish("tool_calls")]);
  const out = repaired([msg("user", [text("go")]), asst, msg("user", [text("continue")])]);
  assert.deepEqual(shape(out), [
    "user:text",
    "assistant:text,call(a)",
    "tool:result(a,interrupted)",
    "user:text",
  ]);
  const synthetic = out[2].parts[0] as Part & { type: "tool_result" };
  assert.equal(synthetic.is_error, true);
  assert.equal(synthetic.name, "bash");
  assert.match(synthetic.content, /interrupted before it returned a result/);
  // Also when the history ends there (killed while the tool ran).
  assert.deepEqual(shape(repaired([asst])), [
    "assistant:text,call(a)",
    "tool:result(a,interrupted)",
  ]);
});

Deno.test("parallel calls partly answered: answers kept, the rest synthesized in that tool message", () => {
  const out = repaired([
    msg("user", [text("go")]),
    msg("assistant", [call("a"), call("b"), call("c"), finish("tool_calls")]),
    msg("tool", [result("b")]),
  ]);
  assert.deepEqual(shape(out), [
    "user:text",
    "assistant:call(a),call(b),call(c)",
    "tool:result(b),result(a,interrupted),result(c,interrupted)",
  ]);
});

Deno.test("empty cancelled or unfinished assistant messages are dropped, with their tool messages", () => {
  const out = repaired([
    msg("user", [text("one")]),
    msg("assistant", [finish("cancelled")]),
    msg("user", [text("two")]),
    msg("assistant", []), // killed before the first delta
    msg("tool", [result("x")]),
    msg("user", [text("three")]),
    msg("assistant", [{ type: "reasoning", text: "hmm" }, text("  ")]), // reasoning only
  ]);
  assert.deepEqual(shape(out), ["user:text", "user:text", "user:text"]);
});

Deno.test("unfinished assistant text is kept; a half-streamed call is answered with valid JSON", () => {
  const out = repaired([
    msg("user", [text("go")]),
    msg("assistant", [text("I will run"), call("a", "bash", '{"comm')]), // no finish: cut off
  ]);
  assert.deepEqual(shape(out), [
    "user:text",
    "assistant:text,call(a)",
    "tool:result(a,interrupted)",
  ]);
  assert.equal((out[1].parts[1] as { input: string }).input, "{}");
  assert.equal((out[1].parts[0] as { text: string }).text, "I will run");
});

Deno.test("calls without id, with a repeated id or an invalid name are removed", () => {
  const out = repaired([
    msg("user", [text("go")]),
    msg("assistant", [call("a"), finish("tool_calls")]),
    msg("tool", [result("a")]),
    msg("assistant", [text("again"), call("a"), call(""), call("b", "bad name!")]),
    msg("tool", [result("a", "second")]),
  ]);
  assert.deepEqual(shape(out), [
    "user:text",
    "assistant:call(a)",
    "tool:result(a)",
    "assistant:text",
  ]);
});

Deno.test("random histories always repair to a valid sequence", () => {
  for (let seed = 1; seed <= 500; seed++) {
    const r = rng(seed);
    const ids = ["a", "b", "c", "d", ""];
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
    const history: Message[] = [];
    for (let i = 0; i < 2 + Math.floor(r() * 12); i++) {
      const kind = r();
      if (kind < 0.25) history.push(msg("user", r() < 0.9 ? [text("u")] : []));
      else if (kind < 0.6) {
        const parts: Part[] = [];
        if (r() < 0.5) parts.push(text(r() < 0.8 ? "t" : " "));
        if (r() < 0.3) parts.push({ type: "reasoning", text: "r" });
        for (let k = Math.floor(r() * 3); k > 0; k--) {
          parts.push(
            call(pick(ids), pick(["bash", "view", "no good"]), pick(['{"x":1}', "{", ""])),
          );
        }
        if (r() < 0.5) parts.push(finish(pick(["stop", "tool_calls", "cancelled", "error"])));
        history.push(msg("assistant", parts));
      } else if (kind < 0.9) {
        history.push(
          msg("tool", Array.from({ length: Math.floor(r() * 3) }, () => result(pick(ids)))),
        );
      } else history.push(msg("system", [text("s")]));
    }
    try {
      repaired(history);
    } catch (err) {
      throw new Error(`seed ${seed}: ${(err as Error).message}`);
    }
  }
});
