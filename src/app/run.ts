/**
 * The composition root of `mopac run`, in four steps: resolve what the run is
 * (resolve_run.ts), open its store and session (`openRun`), wire its providers and
 * agent (`wireRun`, wire_agent.ts), and execute it (`PreparedRun.execute`). A
 * sub-agent (an `agent` tool call) goes through the same open, wire and execute
 * steps with its own profile, model and child session. Whatever a step opens is
 * closed by one AsyncDisposableStack, in reverse order.
 */
import type { AgentEvent } from "../agent/events.ts";
import type { RunOutcome } from "../agent/types.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { preflight } from "../deno_perms/needs.ts";
import { runSecrets } from "../secrets/sources.ts";
import { activeHistory, openSessionStore, type SessionStore } from "../session/mod.ts";
import type { ImagePart } from "../domain/message.ts";
import type { AgentResult, AgentRunner } from "../tools/agent.ts";
import type { ToolContext } from "../tools/types.ts";
import { ProfileRules } from "../permission/rules.ts";
import { BUILTIN_TOOL_NAMES } from "../domain/tool_records.ts";
import { interrupts } from "../util/interrupts.ts";
import { HookHaltError } from "../util/errors.ts";
import { openChildSession, type OpenedSession, openRunSession } from "./open_session.ts";
import type { OutputSchema } from "./output_schema.ts";
import { gatherSystemPrompt } from "./prompt_parts.ts";
import { readAttachments } from "./attachments.ts";
import { warmHttp } from "../provider/warm_http.ts";
import {
  loadSystemPromptFlags,
  type SystemPromptFlags,
  systemPromptRecord,
} from "./system_prompt_flags.ts";
import { type ResolvedRun, resolveRun, type RunOptions } from "./resolve_run.ts";
import { type Ending, type InitEvent, initEvent } from "./run_events.ts";
import { projectFacts, projectNotice } from "./load_config.ts";
import { isEmptyNarrowing } from "../config/mod.ts";
import {
  executeAgent,
  RunProviders,
  type RunShared,
  RunSpend,
  type SystemInputs,
  wireAgent,
  type WiredAgent,
} from "./wire_agent.ts";
import type { Provider } from "../provider/types.ts";
import { type FallbackProvider, type FallbackUse, withFallback } from "../provider/fallback.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { checkBackend } from "../jail/mod.ts";
import { type RunJail, startJail } from "./jail.ts";
import { requirePrices } from "./cost_limit.ts";

/** Turns a sub-agent may take when no limit says otherwise. */
const SUB_AGENT_MAX_TURNS = 50;

/** A run ready to execute; disposing it closes everything it opened. */
export interface PreparedRun extends AsyncDisposable {
  init: InitEvent;
  /** What `--dry-run` prints. */
  describe(): Record<string, unknown>;
  /** The run's model takes images (`-i`, images in --input-format stream-json). */
  acceptsImages: boolean;
  /**
   * Runs the agent on one message. Called again (--input-format stream-json), it goes
   * on in the same session with the next message. `title`: what the session's title is
   * made of, when not the whole prompt; `more.images` replace `-i`'s.
   */
  execute(
    prompt: string,
    emit: (e: AgentEvent) => void,
    signal: AbortSignal,
    title?: string,
    more?: { images?: ImagePart[] },
  ): Promise<RunOutcome & { fallback?: FallbackUse }>;
}

export async function prepareRun(
  args: RunOptions,
  opts: {
    warn: (line: string) => void;
    /** Stops start-up early (SIGINT/SIGTERM): what was opened is closed, and it rejects. */
    signal?: AbortSignal;
    /** Told the session's id as soon as it is open (a run ended during start-up reports it). */
    onSession?: (id: string) => void;
    /** How a run ends for an error (the CLI's table), so the session can record it. */
    endingOf?: (err: unknown) => Ending;
  },
): Promise<PreparedRun> {
  // Resolve. Nothing is opened before the preflight has passed.
  const resolved = await resolveRun(args);
  // Said first: what the project's config asked in vain (turning the jail off among it)
  // shows even when the run stops here.
  const notice = projectNotice(resolved.loaded, resolved.projectIgnored);
  if (notice) opts.warn(notice);
  for (const note of resolved.notes) opts.warn(note);
  // A jail that cannot exist here is named as such, not as a missing Deno flag.
  await checkBackend(resolved.jail);
  preflight(resolved.required);
  requirePrices(resolved);
  // Ajv is loaded only for a run that has a schema to check.
  const outputSchema = args.outputSchema
    ? await (await import("./output_schema.ts")).loadOutputSchema(args.outputSchema, resolved.cwd)
    : undefined;
  const systemFlags = await loadSystemPromptFlags(args, resolved.cwd);
  const images = await readAttachments(args.images ?? [], resolved.cwd);
  await using stack = new AsyncDisposableStack();
  // The jail's probe is part of the preflight: it fails closed (exit 2) before anything opens.
  // While it runs (a bwrap start, ~15 ms) this thread is idle: Deno's fetch code compiles.
  // startJail comes first: it spawns the probe before its first await, then the warm-up
  // runs. A run that makes no HTTP request (a dry run, a replayed cassette) skips it.
  const [jail] = await Promise.all([
    startJail(resolved, opts.warn, { ephemeral: args.ephemeral || !!args.dryRun }),
    args.dryRun || args.replay !== undefined ? undefined : warmHttp(),
  ]);
  // Deferred first, so it runs last: the tools' jobs end, then the jail they ran in.
  stack.defer(() => quietly(() => jail.close()));
  const jailVersion = args.dryRun ? await jail.version() : undefined;
  const opened = await openRun(resolved, args, opts.warn, stack);
  opts.onSession?.(opened.session.handle.id);
  const { shared, wired, small, fallback } = await wireRun(
    resolved,
    opened,
    args,
    { outputSchema, systemFlags },
    jail,
    stack,
    { signal: opts.signal, endingOf: opts.endingOf },
  );
  const { loaded, profile, cwd } = resolved;
  const init = initEvent({
    session_id: opened.session.handle.id,
    model: wired.spec.provider.label,
    agent: profile.name,
    cwd,
    tools: wired.tooling.runner.specs().map((s) => s.name),
    mcp_servers: wired.tooling.mcpStatuses,
    sandbox: jail.info,
    ...projectFacts(loaded, resolved.projectIgnored),
  });
  let messages = 0;
  // What shaped this run's prompts, for whoever reads the session later. A resumed
  // session says so even when empty: the last run's inputs replace the earlier.
  const recordInputs = async () => {
    const inputs = {
      ...(args.promptFile !== undefined ? { prompt_file: args.promptFile } : {}),
      ...(systemPromptRecord(systemFlags)
        ? { system_prompt: systemPromptRecord(systemFlags) }
        : {}),
    };
    if (Object.keys(inputs).length > 0 || opened.session.resumed) {
      await wired.writer.saveMeta({ run_inputs: inputs });
    }
  };
  // Execute is the caller's; what was opened is closed when it disposes the run.
  const owned = stack.move();
  return {
    init,
    describe: () => ({
      ...init,
      session_id: args.ephemeral || args.dryRun ? "(not stored)" : init.session_id,
      small_model: small.label,
      config_files: loaded.files,
      data_dir: loaded.dataDir,
      workspace: loaded.workspaceRoot,
      limits: resolved.limits,
      ...(resolved.fallbackModel
        ? {
          fallback_model:
            `${resolved.fallbackModel.provider_id}/${resolved.fallbackModel.model_id}`,
        }
        : {}),
      ...(resolved.profile.paths.dirs?.length ? { add_dirs: resolved.profile.paths.dirs } : {}),
      permissions: resolved.needs,
      sandbox: { ...jail.info, ...(jailVersion ? { version: jailVersion } : {}) },
      ...(isEmptyNarrowing(loaded.project.narrowing)
        ? {}
        : { project_narrowing: loaded.project.narrowing }),
    }),
    acceptsImages: opened.model.supports_attachments,
    async execute(prompt, emit, signal, title, more = {}) {
      const first = messages++ === 0;
      if (first) {
        shared.spend.start();
        await recordInputs();
      } else {
        // Another message (--input-format stream-json): it continues from what the
        // session holds now, with what is left of the run's token, cost and time limits.
        const session = wired.spec.session;
        session.history = activeHistory(await session.handle.load());
        session.resumed = true;
      }
      const limits = first
        ? resolved.limits
        : { ...shared.spend.remaining(), max_turns: resolved.limits.max_turns };
      const outcome = await executeAgent(shared, wired, {
        prompt,
        title,
        images: more.images ?? images,
        limits,
        onDeny: args.onDeny,
        signal,
        emit,
        titler: resolved.smallModel === resolved.model ? undefined : small,
      }, owned);
      // The result says when the run switched to --fallback-model.
      return fallback?.used ? { ...outcome, fallback: fallback.used } : outcome;
    },
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}

interface OpenedRun {
  store: SessionStore;
  session: OpenedSession;
  /** The large model: the resumed session's, unless `-m` says otherwise. */
  model: ResolvedModel;
  redactor: Redactor;
  /** Progress and warnings, redacted. */
  warn: (line: string) => void;
}

/**
 * Opens the store and the session (new, the one `-C`/`-s` named when the run was
 * resolved, or with `--fork` a copy of it); a dry run writes nothing and opens no
 * stored session.
 */
async function openRun(
  resolved: ResolvedRun,
  args: RunOptions,
  log: (line: string) => void,
  stack: AsyncDisposableStack,
): Promise<OpenedRun> {
  const { loaded, model } = resolved;
  const redactor = runSecrets(loaded, [model, resolved.smallModel, ...fallbackOf(resolved)]);
  const warn = (line: string) => log(redactor.redact(line));
  const store = await openSessionStore(loaded.dataDir, {
    ephemeral: args.ephemeral || args.dryRun,
    warn,
  });
  stack.defer(() => quietly(() => store.close()));
  // A forced exit (util/interrupts.ts) skips this stack: the session is saved and
  // unlocked synchronously instead.
  stack.use(interrupts.atForcedExit(() => store.close()));
  const session = await openRunSession(store, {
    session: args.dryRun ? undefined : resolved.resume?.id,
    cwd: resolved.cwd,
    fork: args.fork,
    sessionId: args.sessionId,
  });
  stack.defer(() => quietly(() => session.handle.close()));
  if (args.verbose) {
    for (const { path, source } of loaded.unusedKeys()) {
      warn(`mopac: ${path.join(".")} (${source}) is a crush key mopac does not use; ignored`);
    }
  }
  if (model.unlisted && args.verbose) {
    warn(`mopac: ${model.provider_id}/${model.model_id} is not in the catalog; limits are guesses`);
  }
  return { store, session, model, redactor, warn };
}

/** The run's providers, what its agents share, and the run's own agent wired. */
async function wireRun(
  resolved: ResolvedRun,
  opened: OpenedRun,
  args: RunOptions,
  prompt: { outputSchema?: OutputSchema; systemFlags: SystemPromptFlags },
  jail: RunJail,
  stack: AsyncDisposableStack,
  opts: { signal?: AbortSignal; endingOf?: (err: unknown) => Ending },
): Promise<{ shared: RunShared; wired: WiredAgent; small: Provider; fallback?: FallbackProvider }> {
  const { loaded, profile, cwd } = resolved;
  const { model, session } = opened;
  const providers = new RunProviders(args, resolved, opened.warn);
  const fallback = resolved.fallbackModel
    ? withFallback(providers.of(model), providers.of(resolved.fallbackModel), opened.warn)
    : undefined;
  const provider = fallback ?? providers.of(model);
  const small = resolved.smallModel === resolved.model
    ? provider
    : providers.of(resolved.smallModel);
  providers.alias(resolved.smallModel, small);
  const shared: RunShared = {
    resolved,
    store: opened.store,
    redactor: opened.redactor,
    warn: opened.warn,
    providers,
    spend: new RunSpend(resolved.limits),
    jail,
    signal: opts.signal,
    endingOf: opts.endingOf,
  };
  const wired = await wireAgent(shared, {
    profile,
    model,
    provider,
    session,
    mcp: true,
    runAgent: subAgentRunner(shared, session.handle.id),
    system: ({ mcpInstructions, tools }) =>
      gatherSystemPrompt({
        loaded,
        cwd,
        model,
        profile,
        mcpInstructions,
        tools,
        answerFormat: prompt.outputSchema?.section,
        flags: prompt.systemFlags,
      }),
    loop: {
      answerCheck: prompt.outputSchema?.check,
      summarizer: loaded.config.options?.disable_auto_summarize ? undefined : {
        provider: small,
        contextWindow: model.context_window,
        summaryWindow: resolved.smallModel.context_window,
      },
    },
  }, stack);
  return { shared, wired, small, fallback };
}

/**
 * Runs `agent` tool calls: each is a child session with the task profile on its
 * model, wired and executed like the run itself. Its calls pass the same kind of
 * gate; it gets what is left of the run's limits, and its spend counts against them.
 */
function subAgentRunner(shared: RunShared, parentId: string): AgentRunner | undefined {
  const { resolved, store } = shared;
  const sub = resolved.subAgent;
  if (!sub) return undefined;
  const provider = shared.providers.of(sub.model);
  // Every child of a run gets the same system prompt: gather it (git, files) once.
  let system: Promise<string> | undefined;
  const prompt = ({ tools }: SystemInputs) =>
    system ??= gatherSystemPrompt({
      loaded: resolved.loaded,
      cwd: resolved.cwd,
      model: sub.model,
      profile: sub.profile,
      mcpInstructions: [],
      tools,
      subAgent: true,
    });
  const run = async (task: string, parentCtx: ToolContext): Promise<AgentResult> => {
    await using stack = new AsyncDisposableStack();
    const session = await openChildSession(store, { cwd: resolved.cwd, parentId });
    stack.defer(() => quietly(() => session.handle.close()));
    const wired = await wireAgent(shared, {
      profile: sub.profile,
      model: sub.model,
      provider,
      session,
      mcp: false,
      system: prompt,
    }, stack);
    const outcome = await executeAgent(shared, wired, {
      prompt: task,
      limits: {
        ...shared.spend.remaining(),
        max_turns: resolved.limits.max_turns ?? SUB_AGENT_MAX_TURNS,
      },
      onDeny: "continue",
      signal: parentCtx.signal,
      emit: () => {},
    }, stack);
    return {
      text: outcome.error
        ? `${outcome.text}\n\n[sub-agent stopped: ${outcome.error.message}]`.trim()
        : outcome.text,
      is_error: outcome.error !== undefined,
      session_id: session.handle.id,
      usage: outcome.usage,
      cost_usd: outcome.cost_usd,
      denials: outcome.denials,
      ...(outcome.error instanceof HookHaltError ? { halt: outcome.error.reason } : {}),
    };
  };
  // What a child is offered: its profile's built-in tools (children start no MCP server
  // and have no `agent` tool of their own).
  const rules = new ProfileRules(sub.profile, resolved.loaded.workspaceRoot);
  const tools = BUILTIN_TOOL_NAMES.filter((name) => name !== "agent" && rules.offers(name));
  return Object.assign(run, { tools });
}

/** Cleanup never throws: what it could not close is gone with the process anyway. */
async function quietly(close: () => unknown): Promise<void> {
  try {
    await close();
  } catch {
    // nothing to do
  }
}

/** The `--fallback-model`, when there is one (its key is a secret of the run too). */
function fallbackOf(resolved: ResolvedRun): ResolvedModel[] {
  return resolved.fallbackModel ? [resolved.fallbackModel] : [];
}
