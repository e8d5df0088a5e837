/**
 * SIGKILL `mopac run` at each dangerous moment of a run, then `mopac run -C "continue"`
 * against the strict fake server: it must exit 0, send only requests the API accepts,
 * take over the dead run's lock, and keep everything the killed run had flushed.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";
import { contentText, exists, lastUserText, sessionMessages, signal } from "./_live.ts";
import { waitFor } from "../_support/wait.ts";
import {
  continueAfterKill,
  INTERRUPTED,
  killDuring,
  RESUMED_ANSWER,
  script,
  toolResult,
  userTexts,
} from "./_crash.ts";

Deno.test("crash: killed while text streams, -C resumes with the flushed text", async () => {
  const story = "Once upon a time a small agent wrote code. ".repeat(40);
  await using ws = await workspace({
    turns: script(scriptText(story, { chunkSize: 3, delayMs: 15 })),
  });
  const k = await killDuring(ws, "tell me a story", async (live, file) => {
    await live.waitFor(
      (e) => e.type === "text" && live.events.filter((x) => x.type === "text").length >= 5,
      "some text",
    );
    // The debounced snapshot reaches the file while the stream still goes on.
    await waitFor(async () => {
      const a = (await sessionMessages(file).catch(() => [])).find((m) => m.role === "assistant");
      return a !== undefined && a.parts.some((p) => p.type === "text");
    }, "an assistant snapshot in the session file");
  });
  const stored = await sessionMessages(k.file);
  const partial = stored.find((m) => m.role === "assistant")!;
  const flushed = partial.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
  assert.ok(flushed.length > 0 && flushed.length < story.length, "killed mid-stream");
  assert.ok(!partial.parts.some((p) => p.type === "finish"));
  // What a kill in the middle of a write leaves: a torn last line.
  const torn = '{"type":"message","message":{"id":"torn","role":"assis';
  await Deno.writeTextFile(k.file, torn, { append: true });

  const msgs = await continueAfterKill(k);
  assert.deepEqual(userTexts(msgs), ["tell me a story", "continue"]);
  const assistant = msgs.find((m) => m.role === "assistant")!;
  assert.equal(contentText(assistant), flushed, "the flushed text was sent back");
  // The file still holds the killed run's records, and the new ones after them.
  const after = await sessionMessages(k.file);
  assert.deepEqual(after.slice(0, 2).map((m) => m.id), stored.slice(0, 2).map((m) => m.id));
  assert.equal(after.length, 4);
  // The resumed run started a fresh line after the torn one: only that line is bad.
  const lines = (await Deno.readTextFile(k.file)).trimEnd().split("\n");
  const bad = lines.filter((l) => {
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(bad.length, 1);
  assert.ok(bad[0].endsWith(torn)); // the kill itself may have torn the same line earlier
});

Deno.test("crash: killed while tool-call arguments stream, the call is answered on resume", async () => {
  const args = { file_path: "big.txt", content: "x".repeat(4000) };
  await using ws = await workspace({
    turns: script(scriptToolCall("write", args, "call_args", { chunkSize: 4, delayMs: 10 })),
  });
  const k = await killDuring(ws, "write the big file", async (_live, file) => {
    await waitFor(async () => {
      const a = (await sessionMessages(file).catch(() => [])).find((m) => m.role === "assistant");
      const call = a?.parts.find((p) => p.type === "tool_call");
      return call !== undefined && (call.input as string).length > 40;
    }, "a half-streamed tool call in the session file");
  });
  const stored = await sessionMessages(k.file);
  const call = stored.find((m) => m.role === "assistant")!.parts.find((p) =>
    p.type === "tool_call"
  )!;
  assert.ok((call.input as string).length < JSON.stringify(args).length, "killed mid-arguments");

  const msgs = await continueAfterKill(k);
  assert.deepEqual(userTexts(msgs), ["write the big file", "continue"]);
  // The half call never ran; it is sent with arguments the API accepts, answered as interrupted.
  assert.ok(!(await exists(`${ws.dir}/big.txt`)));
  const sentCall = msgs.find((m) => m.role === "assistant")!.tool_calls![0];
  assert.equal(sentCall.id, "call_args");
  assert.equal(sentCall.function.arguments, "{}");
  assert.equal(toolResult(msgs, "call_args"), INTERRUPTED);
});

Deno.test("crash: killed while a tool runs, the lock is not held by the tool's process", async () => {
  await using ws = await workspace({
    turns: script(
      scriptToolCall("bash", { command: "echo $$ > tool.pid; sleep 30" }, "call_sleep"),
    ),
  });
  let pgid: number | undefined;
  try {
    // Unjailed: only there does the tool's process outlive mopac (in the jail everything
    // ends with it: jail_lifetime_test.ts), and only there is `$$` a pid of this host's
    // (in the jail it numbers a process of the jail's own pid namespace).
    const k = await killDuring(ws, "run the slow thing", async (live) => {
      await live.waitFor((e) => e.type === "tool_call" && e.id === "call_sleep", "the tool call");
      await waitFor(async () => {
        const text = await Deno.readTextFile(`${ws.dir}/tool.pid`).catch(() => "");
        if (text.endsWith("\n")) pgid = Number(text.trim());
        return pgid !== undefined;
      }, "the tool to start");
    }, { MOPAC_SANDBOX: "off" });
    // The bash group outlives mopac (SIGCONT throws if it is gone): the resume below
    // must work while it still runs, so no lock may have leaked into it.
    Deno.kill(pgid!, "SIGCONT");
    assert.equal((await Deno.readTextFile(`/proc/${pgid}/comm`)).trim(), "bash");
    const stored = await sessionMessages(k.file);
    assert.deepEqual(stored.map((m) => m.role), ["user", "assistant"]);

    const msgs = await continueAfterKill(k);
    assert.deepEqual(userTexts(msgs), ["run the slow thing", "continue"]);
    const call = msgs.find((m) => m.role === "assistant")!.tool_calls![0];
    assert.equal(call.id, "call_sleep");
    assert.equal(toolResult(msgs, "call_sleep"), INTERRUPTED);
  } finally {
    if (pgid !== undefined) {
      try {
        Deno.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
});

for (const when of ["the next request arrives", "the tool result is printed"] as const) {
  Deno.test(`crash: killed between a tool result and the next request (${when})`, async () => {
    const arrived = signal();
    await using ws = await workspace({
      turns: script(scriptToolCall("bash", { command: "echo step-one-done" }, "call_step"), () => {
        arrived.resolve();
        // Nothing comes back before the kill.
        return scriptText("too late", { fault: { stallAfterChunks: 0, stallMs: 30_000 } });
      }),
    });
    const k = await killDuring(ws, "do step one", async (live) => {
      if (when === "the next request arrives") await arrived.promise;
      else {
        await live.waitFor((e) => e.type === "tool_result" && e.id === "call_step", "the result");
      }
    });
    const stored = await sessionMessages(k.file);
    assert.deepEqual(stored.map((m) => m.role), ["user", "assistant", "tool"]);

    const msgs = await continueAfterKill(k);
    assert.deepEqual(userTexts(msgs), ["do step one", "continue"]);
    assert.match(toolResult(msgs, "call_step") ?? "", /step-one-done/);
    const after = await sessionMessages(k.file);
    assert.match(JSON.stringify(after[2]), /step-one-done/, "the result is still in the file");
  });
}

Deno.test("crash: killed while a sub-agent runs, the parent resumes and rm takes both locks", async () => {
  const subAsked = signal();
  await using ws = await workspace({
    turns: (req) => {
      const last = lastUserText(req);
      if (last === "continue") return scriptText(RESUMED_ANSWER);
      if (last === "delegate the look" && req.messages.at(-1)!.role === "user") {
        return scriptToolCall("agent", { prompt: "look around please" }, "call_agent");
      }
      if (last !== "look around please") return undefined;
      subAsked.resolve();
      return scriptText("the sub-agent says ".repeat(60), { chunkSize: 2, delayMs: 15 });
    },
  });
  const sessionsDir = `${ws.dir}/.mopac/sessions`;
  const names = async () => (await Array.fromAsync(Deno.readDir(sessionsDir))).map((e) => e.name);
  const k = await killDuring(ws, "delegate the look", async (live, parentFile) => {
    await live.waitFor((e) => e.type === "tool_call" && e.id === "call_agent", "the agent call");
    await subAsked.promise;
    // The child session's snapshot shows that its stream is under way.
    await waitFor(async () => {
      for (const name of await names()) {
        const path = `${sessionsDir}/${name}`;
        if (!name.endsWith(".jsonl") || path === parentFile) continue;
        if ((await sessionMessages(path)).some((m) => m.role === "assistant")) return true;
      }
      return false;
    }, "the sub-agent's streamed text in its session file");
  });
  const msgs = await continueAfterKill(k);
  assert.deepEqual(userTexts(msgs), ["delegate the look", "continue"]);
  assert.equal(toolResult(msgs, "call_agent"), INTERRUPTED);

  // The child kept its dead owner's lock; removing the parent takes it over, removes both.
  assert.equal((await names()).filter((n) => n.endsWith(".lock")).length, 1);
  const rm = await ws.run(["sessions", "rm", k.id]);
  assert.equal(rm.code, 0, rm.stderr);
  assert.deepEqual(await names(), []);
});
