/**
 * The agent loop: request, stream, run the tool calls, repeat until the model stops
 * calling tools or a limit ends the run. Everything it touches is passed in.
 */
import type { Message, ToolResultPart } from "../provider/types.ts";
import type { Denial } from "../permission/types.ts";
import {
  AgentError,
  BudgetError,
  GateError,
  InterruptedError,
  MopacError,
} from "../util/errors.ts";
import { AssistantDraft, textOf, toolCallsOf } from "./draft.ts";
import { addUsage, emptyUsage, type LoopDeps, type LoopInput, type RunOutcome } from "./types.ts";
import { checkBudget } from "./budget.ts";

export async function runAgent(deps: LoopDeps, input: LoopInput): Promise<RunOutcome> {
  const { store, clock, emit } = deps;
  const history = [...input.history];
  const denials: Denial[] = [];
  const outcome: RunOutcome = { turns: 0, usage: emptyUsage(), cost_usd: 0, text: "", denials };
  const started = clock.now();

  const user: Message = {
    id: deps.newId(),
    role: "user",
    parts: [{ type: "text", text: input.prompt }],
    created_at: started,
    updated_at: started,
  };
  history.push(user);
  await store.saveMessage(user, { flush: true });

  try {
    while (true) {
      throwIfAborted(input.signal);
      checkBudget(input.limits, outcome, clock.now() - started);
      await deps.beforeTurn?.();

      const draft = new AssistantDraft(deps.newId(), deps.provider.label, clock.now());
      const turn = await streamTurn(deps, input, history, draft);
      outcome.turns++;
      outcome.usage = addUsage(outcome.usage, turn.usage);
      outcome.cost_usd += turn.cost_usd;
      draft.complete(turn, clock.now());
      history.push(draft.message);
      await store.saveMessage(draft.message, { flush: true });
      emit({ type: "turn", n: outcome.turns, usage: turn.usage, cost_usd: turn.cost_usd });
      await store.saveMeta({ usage: outcome.usage, cost_usd: outcome.cost_usd });

      const calls = toolCallsOf(draft.message);
      const text = textOf(draft.message);
      if (text) outcome.text = text;
      if (calls.length === 0) return outcome;

      const toolMessage: Message = {
        id: deps.newId(),
        role: "tool",
        parts: [],
        created_at: clock.now(),
        updated_at: clock.now(),
      };
      history.push(toolMessage);
      for (const call of calls) {
        let result: ToolResultPart;
        if (input.signal.aborted) {
          result = interruptedResult(call.id, call.name);
        } else {
          emit({ type: "tool_call", id: call.id, name: call.name, input: parseLoose(call.input) });
          const ran = await deps.tools.run(call, input.signal);
          result = ran.result;
          if (ran.denial) {
            denials.push(ran.denial);
            await store.saveMeta({ denial: ran.denial });
          }
        }
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
        });
        if (result.denied && input.onDeny === "stop") {
          throw new GateError(`permission denied: ${call.name} (${denials.at(-1)?.rule})`);
        }
      }
    }
  } catch (err) {
    outcome.error = asRunError(err, input.signal);
    return outcome;
  } finally {
    await store.flush();
    if (!outcome.error && input.onDeny === "fail" && denials.length > 0) {
      outcome.error = new GateError(`${denials.length} tool call(s) denied (--on-deny fail)`);
    }
  }
}

async function streamTurn(
  deps: LoopDeps,
  input: LoopInput,
  history: Message[],
  draft: AssistantDraft,
) {
  const { clock, emit, store } = deps;
  const messageId = draft.message.id;
  try {
    return await deps.provider.complete(
      {
        system: input.system,
        messages: deps.repair(history),
        tools: deps.tools.specs(),
        signal: input.signal,
      },
      (event) => {
        if (!draft.apply(event, clock.now())) return;
        if (event.type === "text") {
          emit({ type: "text", delta: event.delta, message_id: messageId });
        }
        if (event.type === "reasoning") {
          emit({ type: "reasoning", delta: event.delta, message_id: messageId });
        }
        if (event.type === "retry") {
          const { attempt, delay_ms, reason } = event;
          emit({ type: "retry", attempt, delay_ms, reason, message_id: messageId });
        }
        // Snapshot for crash recovery; the store debounces these writes.
        void store.saveMessage(draft.message);
      },
    );
  } catch (err) {
    const cancelled = input.signal.aborted;
    draft.abandon(cancelled ? "cancelled" : "error", clock.now(), String(err));
    history.push(draft.message);
    await store.saveMessage(draft.message, { flush: true });
    throw err;
  }
}

function interruptedResult(id: string, name: string): ToolResultPart {
  return {
    type: "tool_result",
    tool_call_id: id,
    name,
    content: "Tool call cancelled: the run was interrupted.",
    is_error: true,
  };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new InterruptedError("SIGINT");
}

function asRunError(err: unknown, signal: AbortSignal): MopacError {
  if (signal.aborted && signal.reason instanceof MopacError) return signal.reason;
  if (err instanceof MopacError) return err;
  if (signal.aborted) return new InterruptedError("SIGINT");
  if (err instanceof BudgetError) return err;
  return new AgentError(err instanceof Error ? err.message : String(err), { cause: err });
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
