/**
 * Runs the tool calls of one assistant message and records each result as soon
 * as it exists. Consecutive `agent` calls run in parallel (sub-agents only read);
 * everything else runs in order, since later calls may depend on earlier ones.
 */
import type { Message, ToolCallPart } from "../domain/message.ts";
import type { BuiltinToolName } from "../domain/tool_records.ts";
import {
  cancelledResult,
  MAX_ARGUMENT_DEPTH,
  nestingDepth,
  type ToolRunResult,
} from "./tool_runner.ts";
import { GateError, HookHaltError } from "../util/errors.ts";
import { afterDenial } from "./limits.ts";
import type { LoopGuard } from "./loop_guard.ts";
import { addUsage } from "../domain/usage.ts";
import type { LoopDeps, LoopInput, RunOutcome } from "./types.ts";

const PARALLEL_TOOLS = new Set<string>(["agent"] satisfies BuiltinToolName[]);

export async function runToolCalls(
  deps: LoopDeps,
  input: LoopInput,
  calls: ToolCallPart[],
  toolMessage: Message,
  outcome: RunOutcome,
  guard: LoopGuard,
): Promise<void> {
  for (const batch of batches(calls)) {
    const running = batch.map((call) => start(deps, input, call));
    for (let i = 0; i < batch.length; i++) {
      const ran = await running[i];
      await record(deps, input, batch[i], ran, toolMessage, outcome, guard);
    }
  }
}

/** A call's result and how long it ran (until it ended, not until it was recorded). */
type Timed = ToolRunResult & { duration_ms: number };

function batches(calls: ToolCallPart[]): ToolCallPart[][] {
  const out: ToolCallPart[][] = [];
  for (const call of calls) {
    const last = out.at(-1);
    if (last && PARALLEL_TOOLS.has(call.name) && PARALLEL_TOOLS.has(last[0].name)) last.push(call);
    else out.push([call]);
  }
  return out;
}

function start(deps: LoopDeps, input: LoopInput, call: ToolCallPart): Promise<Timed> {
  if (input.signal.aborted) {
    return Promise.resolve({ result: cancelledResult(call), duration_ms: 0 });
  }
  deps.emit({ type: "tool_call", id: call.id, name: call.name, input: parseLoose(call.input) });
  const started = deps.clock.now();
  return deps.tools.run(call, input.signal).then((ran) => ({
    ...ran,
    duration_ms: Math.max(0, deps.clock.now() - started),
  }));
}

async function record(
  deps: LoopDeps,
  input: LoopInput,
  call: ToolCallPart,
  ran: Timed,
  toolMessage: Message,
  outcome: RunOutcome,
  guard: LoopGuard,
): Promise<void> {
  const { store, emit, clock } = deps;
  const result = ran.result;
  if (ran.usage) outcome.usage = addUsage(outcome.usage, ran.usage);
  if (ran.cost_usd) outcome.cost_usd += ran.cost_usd;
  if (ran.denial) {
    outcome.denials.push(ran.denial);
    await store.saveMeta({ denial: ran.denial });
  }
  // A sub-agent's refusals are the run's refusals: reported, and --on-deny applies.
  const nested = ran.nested_denials ?? [];
  outcome.denials.push(...nested);
  toolMessage.parts.push(result);
  toolMessage.updated_at = clock.now();
  await store.saveMessage(toolMessage, { flush: true });
  emit({
    type: "tool_result",
    id: result.tool_call_id,
    name: result.name,
    is_error: result.is_error,
    denied: result.denied === true,
    output: result.content,
    duration_ms: ran.duration_ms,
  });
  guard.record(call.name, call.input, result.content);
  if (ran.halt !== undefined) throw new HookHaltError(ran.halt);
  if (afterDenial(input.onDeny) === "continue") return;
  if (result.denied) {
    throw new GateError(`permission denied: ${call.name} (${ran.denial?.rule ?? "gate"})`);
  }
  if (nested.length > 0) {
    throw new GateError(`permission denied in a sub-agent: ${nested[0].tool} (${nested[0].rule})`);
  }
}

function parseLoose(text: string): unknown {
  // Absurdly deep input stays text: redacting and printing it would overflow the stack.
  if (nestingDepth(text) > MAX_ARGUMENT_DEPTH) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
