/**
 * The crash tests' steps: run `mopac run` until the moment under test and SIGKILL it,
 * then `mopac run -C "continue"` and check what the strict fake server was sent.
 */
import assert from "node:assert/strict";
import {
  type ChatMessageIn,
  type ParsedRequest,
  type ScriptedTurn,
  scriptText,
} from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import type { Workspace } from "../_support/workspace.ts";
import {
  contentText,
  exists,
  lastUserText,
  type LiveRun,
  sessionMessages,
  sessionPath,
  startLive,
} from "./_live.ts";

export const INTERRUPTED = "Tool execution was interrupted before it returned a result.";
export const RESUMED_ANSWER = "picked up where we left off";

/** The killed run answers with `first`, its follow-up requests with `onRequest`; `-C` gets text. */
export function script(first: ScriptedTurn, onRequest?: (req: ParsedRequest) => ScriptedTurn) {
  return (req: ParsedRequest) => {
    if (lastUserText(req) === "continue") return scriptText(RESUMED_ANSWER);
    if (req.messages.at(-1)?.role === "user") return first;
    return onRequest?.(req);
  };
}

export interface Killed {
  ws: Workspace;
  id: string;
  file: string;
  pid: number;
}

/** Starts a run, lets `until` decide when it is at the moment under test, and kills it. */
export async function killDuring(
  ws: Workspace,
  prompt: string,
  until: (live: LiveRun, file: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<Killed> {
  const live = startLive(ws.spawn(["run", "-o", "stream-json", prompt], { env }));
  try {
    const init = await live.waitFor((e) => e.type === "init", "the init event");
    const id = init.session_id as string;
    const file = sessionPath(ws.dir, id);
    await until(live, file);
    await live.kill();
    const result = live.events.find((e) => e.type === "result");
    assert.equal(result, undefined, "the run was killed before it ended");
    return { ws, id, file, pid: live.child.pid };
  } finally {
    await live.kill();
  }
}

/** `-C continue` after the kill; returns the request it sent and the messages it was sent. */
export async function continueAfterKill(k: Killed): Promise<ChatMessageIn[]> {
  const lock = k.file.replace(/\.jsonl$/, ".lock");
  // The dead run's lock is still there, naming the dead pid: it must not block the resume.
  assert.ok(await exists(lock), "the killed run left its lock file");
  assert.equal(JSON.parse(await Deno.readTextFile(lock)).pid, k.pid);
  const before = k.ws.fake.turnRequests().length;
  const r = await k.ws.run(["run", "-o", "stream-json", "-C", "continue"]);
  assert.equal(r.code, 0, r.stderr);
  const ev = events(r.stdout);
  assert.equal(ev[0].session_id, k.id, "-C continued the killed session");
  assert.equal(ev.at(-1)!.result, RESUMED_ANSWER);
  assert.deepEqual(k.ws.fake.rejected, [], "every request was valid");
  const sent = k.ws.fake.turnRequests().slice(before);
  assert.equal(sent.length, 1);
  assert.ok(!(await exists(lock)), "the resumed run released the lock");
  // The index agrees with the file again (the killed run may have left it behind).
  const list = await k.ws.run(["sessions", "list", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  const [row] = JSON.parse(list.stdout);
  assert.equal(row.id, k.id);
  assert.equal(row.message_count, (await sessionMessages(k.file)).length);
  const msgs = sent[0].messages;
  assert.equal(contentText(msgs.at(-1)!), "continue");
  return msgs;
}

export function userTexts(msgs: ChatMessageIn[]): string[] {
  return msgs.filter((m) => m.role === "user").map(contentText);
}

export function toolResult(msgs: ChatMessageIn[], callId: string): string | undefined {
  const m = msgs.find((m) => m.role === "tool" && m.tool_call_id === callId);
  return m ? contentText(m) : undefined;
}
