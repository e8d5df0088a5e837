/**
 * The agent loop: request, stream, run the tool calls, repeat until the model stops
 * calling tools or a limit ends the run. Everything it touches is passed in.
 */
import {
  type FinishReason,
  type Message,
  textOf,
  toolCallsOf,
  userMessage,
} from "../domain/message.ts";
import type { Denial } from "../domain/tool_records.ts";
import { AgentError, GateError, InterruptedError, MopacError } from "../util/errors.ts";
import { AssistantDraft } from "./draft.ts";
import { addUsage, emptyUsage } from "../domain/usage.ts";
import { checkBudget, checkOvershoot, failsAtEnd, timeLimit } from "./limits.ts";
import type { LoopDeps, LoopInput, RunOutcome } from "./types.ts";
import { LoopGuard } from "./loop_guard.ts";
import { runToolCalls } from "./tool_calls.ts";
import { answerRetryPrompt, MAX_ANSWER_RETRIES } from "./answer_check.ts";
import { estimateTokens, needsSummary, SUMMARY_PREFIX, writeSummary } from "./summarize.ts";

export async function runAgent(deps: LoopDeps, given: LoopInput): Promise<RunOutcome> {
  const { store, clock, emit } = deps;
  // From here on the signal also carries the time limit: it stops requests and tools too.
  using time = timeLimit(given.signal, given.limits.timeout_ms);
  const input: LoopInput = { ...given, signal: time.signal };
  const history = [...input.history];
  const denials: Denial[] = [];
  const outcome: RunOutcome = { turns: 0, usage: emptyUsage(), cost_usd: 0, text: "", denials };
  const started = clock.now();
  const guard = new LoopGuard();
  let contextTokens: number | undefined;
  let overflowRetried = false;
  let answerRetries = 0;

  const user = userMessage(deps.newId(), input.prompt, started);
  if (input.images?.length) user.parts.push(...input.images);
  history.push(user);

  try {
    await store.saveMessage(user, { flush: true });
    while (true) {
      throwIfAborted(input.signal);
      checkBudget(input.limits, outcome);
      await deps.beforeTurn?.();
      if (deps.summarizer && history.length > 1) {
        const used = contextTokens ?? estimateTokens(input.system, history);
        if (needsSummary(used, deps.summarizer.contextWindow)) {
          await compact(deps, input, history, outcome, used);
          contextTokens = undefined;
        }
      }

      const draft = new AssistantDraft(deps.newId(), deps.provider.label, clock.now());
      deps.emit({
        type: "request",
        n: outcome.turns + 1,
        model: deps.provider.label,
        message_id: draft.id,
      });
      let turn;
      try {
        turn = await streamTurn(deps, input, history, draft);
      } catch (err) {
        if (!isContextOverflow(err) || !deps.summarizer || overflowRetried) throw err;
        // The provider says the request is too big: summarize and try once more.
        overflowRetried = true;
        history.pop(); // the abandoned draft
        await compact(deps, input, history, outcome, estimateTokens(input.system, history));
        contextTokens = undefined;
        continue;
      }
      contextTokens = turn.usage.estimated
        ? undefined
        : turn.usage.input_tokens + turn.usage.output_tokens;
      outcome.turns++;
      outcome.usage = addUsage(outcome.usage, turn.usage);
      outcome.cost_usd += turn.cost_usd;
      const message = draft.complete(turn, clock.now());
      history.push(message);
      // The answer and the run's totals reach the file in one write (one index update):
      // the message is queued, and the meta record writes the queue at once.
      await store.saveMessage(message);
      await store.saveMeta({ usage: outcome.usage, cost_usd: outcome.cost_usd });
      emit({ type: "turn", n: outcome.turns, usage: turn.usage, cost_usd: turn.cost_usd });

      const calls = toolCallsOf(message);
      const text = textOf(message);
      if (text) outcome.text = text;
      if (calls.length === 0) {
        checkOvershoot(input.limits, outcome);
        // A cut or filtered answer is not the agent finishing: a pipeline must not see exit 0.
        const unfinished = unfinishedAnswer(turn.finish_reason, text);
        if (unfinished) throw new AgentError(unfinished);
        if (!deps.answerCheck) return outcome;
        const verdict = deps.answerCheck(text);
        if (verdict.ok) {
          outcome.structured_output = verdict.value;
          return outcome;
        }
        if (++answerRetries > MAX_ANSWER_RETRIES) {
          throw new AgentError(
            `the final answer does not match --output-schema: ${verdict.problem}`,
          );
        }
        // Tell the model what is wrong; the next turn is its corrected answer.
        const ask = userMessage(deps.newId(), answerRetryPrompt(verdict.problem), clock.now());
        history.push(ask);
        await store.saveMessage(ask, { flush: true });
        continue;
      }

      const toolMessage: Message = {
        id: deps.newId(),
        role: "tool",
        parts: [],
        created_at: clock.now(),
        updated_at: clock.now(),
      };
      history.push(toolMessage);
      await runToolCalls(deps, input, calls, toolMessage, outcome, guard);
    }
  } catch (err) {
    outcome.error = asRunError(err, input.signal);
    return outcome;
  } finally {
    try {
      await store.flush();
    } catch (err) {
      // The store failing (disk full, file gone) ends the run like any failure: the
      // outcome still says what was done, and how it ended.
      outcome.error ??= asRunError(err, input.signal);
    }
    if (!outcome.error && failsAtEnd(input.onDeny, denials.length)) {
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
  const messageId = draft.id;
  // Snapshots for crash recovery: the store reads the draft on its debounce, as it is
  // then, so each delta below costs its own bytes and nothing per message size.
  const live = store.liveMessage(messageId, () => draft.snapshot());
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
        // A head start for the tool while its arguments stream (e.g. the bash tool's jail).
        if (event.type === "tool_call_start") deps.tools.warm(event.name);
        if (event.type === "text") {
          emit({ type: "text", delta: event.delta, message_id: messageId });
        }
        if (event.type === "reasoning") {
          emit({ type: "reasoning", delta: event.delta, message_id: messageId });
        }
        if (event.type === "retry") {
          const { attempt, delay_ms, reason, model } = event;
          emit({
            type: "retry",
            attempt,
            delay_ms,
            reason,
            message_id: messageId,
            ...(model ? { model } : {}),
          });
        }
        live.changed();
      },
    );
  } catch (err) {
    const cancelled = input.signal.aborted;
    const message = draft.abandon(cancelled ? "cancelled" : "error", clock.now(), String(err));
    history.push(message);
    await store.saveMessage(message, { flush: true });
    throw err;
  }
}

async function compact(
  deps: LoopDeps,
  input: LoopInput,
  history: Message[],
  outcome: RunOutcome,
  tokensBefore: number,
): Promise<void> {
  const { clock, store } = deps;
  let summary;
  try {
    summary = await writeSummary(deps.summarizer!, deps.repair(history), input.signal, clock.now());
  } catch (err) {
    if (input.signal.aborted) throw err;
    throw new AgentError(`summarizing the conversation failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
  outcome.usage = addUsage(outcome.usage, summary.usage);
  outcome.cost_usd += summary.cost_usd;
  const message: Message = {
    ...userMessage(deps.newId(), SUMMARY_PREFIX + summary.text, clock.now()),
    // The summary's own cost belongs to the session's totals.
    usage: summary.usage,
    cost_usd: summary.cost_usd,
  };
  history.splice(0, history.length, message);
  await store.saveMessage(message, { flush: true });
  await store.saveMeta({ summary_message_id: message.id });
  deps.emit({ type: "summarized", summary_message_id: message.id, tokens_before: tokensBefore });
}

/** Why a response without tool calls is no final answer; undefined when it is one. */
function unfinishedAnswer(finish: FinishReason, text: string): string | undefined {
  if (finish === "length") {
    return 'the model\'s answer was cut off at its output token limit (finish_reason "length"); ' +
      "raise the model's default_max_tokens, or continue the session with mopac run -C";
  }
  if (finish === "content_filter") {
    return "the provider's content filter stopped the model's answer";
  }
  if (finish === "tool_calls" && text === "") {
    return "the model ended its turn for tool calls but sent none that could be run " +
      "(a call without a function name)";
  }
  return undefined;
}

function isContextOverflow(err: unknown): boolean {
  return (err as { kind?: string } | null)?.kind === "context_length";
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new InterruptedError("SIGINT");
}

function asRunError(err: unknown, signal: AbortSignal): MopacError {
  if (signal.aborted && signal.reason instanceof MopacError) return signal.reason;
  if (err instanceof MopacError) return err;
  if (signal.aborted) return new InterruptedError("SIGINT");
  return new AgentError(err instanceof Error ? err.message : String(err), { cause: err });
}
