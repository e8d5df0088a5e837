/**
 * One agent run, wired and executed the same way for the run itself and for each
 * sub-agent an `agent` tool call starts: its session writer (secrets redacted), its
 * tools and gate, its system prompt, the loop, the title, and the meta written at
 * the end. What differs between the two is a parameter here, never a second copy.
 * Everything opened is handed to the caller's AsyncDisposableStack, the one owner
 * of cleanup.
 */
import { resolve } from "node:path";
import type { AgentEvent } from "../agent/events.ts";
import type { LoopDeps, RunOutcome } from "../agent/types.ts";
import type { Limits, OnDeny } from "../agent/limits.ts";
import { runAgent } from "../agent/loop.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import type { Usage } from "../domain/usage.ts";
import type { ImagePart } from "../domain/message.ts";
import type { Provider } from "../provider/types.ts";
import { createProvider, type ProviderOptions } from "../provider/provider.ts";
import type { Profile } from "../permission/profiles.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { repairForRequest, type SessionStore } from "../session/mod.ts";
import type { LastRun, SessionWriter } from "../session/types.ts";
import type { AgentRunner } from "../tools/agent.ts";
import type { ToolState } from "../tools/types.ts";
import { systemClock } from "../util/clock.ts";
import { MopacError } from "../util/errors.ts";
import type { ResolvedRun, RunOptions } from "./resolve_run.ts";
import { type OpenedSession, persistedState, sessionToolContext } from "./open_session.ts";
import { redactingEmit, redactOutcome, secretSafeWriter } from "./redacting.ts";
import { buildTooling, type Tooling } from "./tooling.ts";
import { startTitle } from "./title.ts";
import { StorageWatch } from "./storage_watch.ts";
import type { RunJail } from "./jail.ts";
import type { Ending } from "./run_events.ts";

/** What every agent run of one `mopac run` shares. */
export interface RunShared {
  resolved: ResolvedRun;
  store: SessionStore;
  redactor: Redactor;
  /** Progress and warnings (stderr), already redacted. */
  warn: (line: string) => void;
  providers: RunProviders;
  spend: RunSpend;
  /** The run's OS jail: the run's and every sub-agent's commands run in it. */
  jail?: RunJail;
  /** Stops the run's start-up (SIGINT/SIGTERM); default: the process's. */
  signal?: AbortSignal;
  /** How an outcome's error ends a run (the CLI's table): the session records it. */
  endingOf?: (err: unknown) => Ending;
}

/** What makes one agent run what it is. */
export interface AgentSpec {
  profile: Profile;
  model: ResolvedModel;
  provider: Provider;
  session: OpenedSession;
  /** Start the profile's MCP servers (the run), or none (sub-agents). */
  mcp: boolean;
  /** Runs `agent` tool calls; absent, the `agent` tool does not exist for this run. */
  runAgent?: AgentRunner;
  /** The system prompt, given the MCP servers' instructions and the tools offered. */
  system: (offered: SystemInputs) => Promise<string>;
  /** Loop extras only the run itself has. */
  loop?: Pick<LoopDeps, "summarizer" | "answerCheck">;
}

/** What the system prompt is built from once the tools are wired. */
export interface SystemInputs {
  mcpInstructions: Array<{ server: string; text: string }>;
  /** Names of the tools offered to the model. */
  tools: string[];
}

export interface WiredAgent {
  spec: AgentSpec;
  writer: SessionWriter;
  /** Stops the run when its session can no longer be written. */
  storage: StorageWatch;
  state: ToolState;
  tooling: Tooling;
  system: string;
}

export interface AgentInput {
  prompt: string;
  /** `-i` images, sent with the prompt. */
  images?: ImagePart[];
  limits: Limits;
  onDeny: OnDeny;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  /** The model that writes a better title in the background; absent: the prompt's first line. */
  titler?: Provider;
  /** What the title is made of, when not the whole prompt (not the text piped in front of it). */
  title?: string;
}

/** Builds the writer, tools and system prompt of one agent run; `stack` closes the tools. */
export async function wireAgent(
  shared: RunShared,
  spec: AgentSpec,
  stack: AsyncDisposableStack,
): Promise<WiredAgent> {
  const { resolved, redactor, warn } = shared;
  const { loaded } = resolved;
  const storage = new StorageWatch();
  const writer = storage.watch(secretSafeWriter(spec.session.handle, redactor));
  const state = spec.session.state;
  const tooling = await buildTooling({
    config: loaded.config,
    profile: spec.profile,
    workspace: loaded.workspaceRoot,
    dataDir: loaded.dataDir,
    context: sessionToolContext({
      writer,
      state,
      workspace: loaded.workspaceRoot,
      env: loaded.config.env ?? {},
      attachments: spec.model.supports_attachments,
    }),
    redactor,
    warn,
    runAgent: spec.runAgent,
    mcp: spec.mcp,
    launcher: shared.jail?.launcher,
    jailServers: shared.jail?.jailServers,
    signal: shared.signal,
  });
  stack.defer(() => tooling.close());
  const system = await spec.system({
    mcpInstructions: tooling.mcp?.instructions() ?? [],
    tools: tooling.runner.specs().map((s) => s.name),
  });
  return { spec, writer, storage, state, tooling, system };
}

/**
 * Runs the loop of a wired agent: the title first (unless resuming), the run's spend
 * counted per turn, every event and the outcome redacted, and the session's meta
 * (model, tool state) written at the end whatever happened.
 */
export async function executeAgent(
  shared: RunShared,
  wired: WiredAgent,
  input: AgentInput,
  stack: AsyncDisposableStack,
): Promise<RunOutcome> {
  const { spec, writer, tooling } = wired;
  const { redactor, spend } = shared;
  if (!spec.session.resumed) {
    // Not waited for: closing the run aborts a background title still running.
    const abort = new AbortController();
    const about = input.title || input.prompt;
    const done = startTitle(input.titler, about, writer, shared.warn, abort.signal);
    stack.defer(async () => {
      abort.abort();
      await done;
    });
  }
  const redacted = redactingEmit(input.emit, redactor);
  const emit = (e: AgentEvent) => {
    // A sub-agent started later gets what is left of the limits after this turn.
    if (e.type === "turn") spend.add(e.usage, e.cost_usd);
    redacted(e);
  };
  const mcp = tooling.mcp;
  // `sessions list` shows how the last run went: started now, ended as the outcome says.
  const started = Date.now();
  const lastRun = (outcome?: RunOutcome): { last_run: LastRun } | undefined => {
    if (!shared.endingOf) return undefined;
    if (!outcome) return { last_run: { started_at: started } };
    const { subtype, code } = shared.endingOf(outcome.error);
    return {
      last_run: { started_at: started, ended_at: Date.now(), subtype, exit_code: code },
    };
  };
  // The meta is written whatever happened; when it cannot be, that is how the run ended
  // (unless it had ended otherwise already).
  const saveMeta = (outcome?: RunOutcome) =>
    writer.saveMeta({
      model: spec.provider.label,
      ...persistedState(wired.state),
      ...lastRun(outcome),
    });
  let outcome: RunOutcome;
  try {
    const starting = lastRun();
    if (starting) await writer.saveMeta(starting);
    outcome = await runAgent({
      provider: spec.provider,
      tools: tooling.runner,
      store: writer,
      clock: systemClock,
      emit,
      newId: () => crypto.randomUUID(),
      repair: repairForRequest,
      beforeTurn: mcp ? async () => void (await mcp.refresh()) : undefined,
      ...spec.loop,
    }, {
      system: wired.system,
      history: spec.session.history,
      prompt: input.prompt,
      ...(input.images?.length ? { images: input.images } : {}),
      limits: input.limits,
      onDeny: input.onDeny,
      // A session that can no longer be written stops the run like a signal would.
      signal: AbortSignal.any([input.signal, wired.storage.signal]),
    });
  } catch (err) {
    await saveMeta().catch(() => {});
    throw err;
  }
  try {
    await saveMeta(outcome);
  } catch (err) {
    if (!(err instanceof MopacError)) throw err;
    outcome.error ??= err;
  }
  return redactOutcome(redactor, redacted, outcome);
}

/**
 * The providers of a run: one per model, each with the run's record/replay cassette,
 * idle timeout and log. Sub-agents on the small model share its provider.
 */
export class RunProviders {
  readonly #options: ProviderOptions;
  readonly #byModel = new Map<ResolvedModel, Provider>();

  constructor(
    args: Pick<RunOptions, "record" | "replay">,
    resolved: ResolvedRun,
    log: ProviderOptions["log"],
  ) {
    const timeout = resolved.loaded.config.options?.request_timeout;
    this.#options = {
      // Relative to --cwd, like --output-schema and the permissions the preflight checked.
      recordPath: args.record && resolve(resolved.cwd, args.record),
      replayPath: args.replay && resolve(resolved.cwd, args.replay),
      idleTimeoutMs: timeout ? timeout * 1000 : undefined,
      log,
    };
  }

  /** The provider of `model`, made once. */
  of(model: ResolvedModel): Provider {
    let provider = this.#byModel.get(model);
    if (!provider) {
      provider = createProvider(model, this.#options);
      this.#byModel.set(model, provider);
    }
    return provider;
  }

  /** Makes `model` use `provider` (the small model is the large one when none is configured). */
  alias(model: ResolvedModel, provider: Provider): void {
    this.#byModel.set(model, provider);
  }
}

/**
 * What a run has spent so far, so that a sub-agent started mid-run gets only what
 * is left of the run's token, cost and time limits (its spend counts against them).
 */
export class RunSpend {
  #tokens = 0;
  #cost = 0;
  #started = Date.now();

  constructor(readonly limits: Limits) {}

  /** Call when the run starts, so time limits count from there. */
  start(): void {
    this.#started = Date.now();
  }

  add(usage: Usage, cost: number): void {
    this.#tokens += usage.input_tokens + usage.output_tokens;
    this.#cost += cost;
  }

  /** The run's limits minus what is spent; a spent limit leaves 0 (the child stops at once). */
  remaining(): Limits {
    const { max_tokens, max_cost, timeout_ms, max_turns } = this.limits;
    return {
      max_turns,
      max_tokens: max_tokens === undefined ? undefined : Math.max(0, max_tokens - this.#tokens),
      max_cost: max_cost === undefined ? undefined : Math.max(0, max_cost - this.#cost),
      timeout_ms: timeout_ms === undefined
        ? undefined
        : Math.max(0, timeout_ms - (Date.now() - this.#started)),
    };
  }
}
