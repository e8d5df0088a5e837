/** What the agent loop is given and what it returns. The loop itself does no I/O. */
import type { Provider } from "../provider/types.ts";
import type { ImagePart, Message } from "../domain/message.ts";
import type { ToolRunner } from "./tool_runner.ts";
import type { SessionWriter } from "../session/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Denial } from "../domain/tool_records.ts";
import type { Limits, OnDeny, RunTotals } from "./limits.ts";
import type { MopacError } from "../util/errors.ts";
import type { AgentEvent } from "./events.ts";
import type { Summarizer } from "./summarize.ts";

export interface LoopDeps {
  provider: Provider;
  tools: ToolRunner;
  store: SessionWriter;
  clock: Clock;
  emit: (event: AgentEvent) => void;
  newId: () => string;
  /** Makes stored history API-valid before each request (session repair). */
  repair: (messages: Message[]) => Message[];
  /** Checks the final answer (`--output-schema`): its parsed value, or what is wrong with it. */
  answerCheck?: (text: string) => AnswerVerdict;
  /** Set when auto-summarize is on. */
  summarizer?: Summarizer;
  /** Runs between turns (e.g. MCP tool list refresh). */
  beforeTurn?: () => Promise<void>;
}

export interface LoopInput {
  system: string;
  /** Messages of the session so far, oldest first. */
  history: Message[];
  prompt: string;
  /** Images attached to the prompt (`-i`), sent with it in the user message. */
  images?: ImagePart[];
  limits: Limits;
  onDeny: OnDeny;
  signal: AbortSignal;
}

export type AnswerVerdict = { ok: true; value: unknown } | { ok: false; problem: string };

export interface RunOutcome extends RunTotals {
  /** The last assistant text. */
  text: string;
  /** The final answer parsed as JSON, when `--output-schema` is given and it matched. */
  structured_output?: unknown;
  denials: Denial[];
  /** Set when the run did not finish cleanly; maps to the exit code. */
  error?: MopacError;
}
