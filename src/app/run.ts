/**
 * The composition root of `mopac run`: wires config, catalog, provider, session,
 * tools, MCP and the gate into the agent loop. Nothing else builds these.
 */
import { resolve } from "node:path";
import type { RunOptions } from "./options.ts";
import type { AgentEvent, InitEvent } from "../agent/events.ts";
import type { RunOutcome } from "../agent/types.ts";
import { runAgent } from "../agent/loop.ts";
import { timeoutReached } from "../agent/limits.ts";
import { resolveModel } from "../catalog/mod.ts";
import { createProvider } from "../provider/provider.ts";
import { openSessionStore, repairForRequest } from "../session/mod.ts";
import { preflight } from "../deno_perms/needs.ts";
import { systemClock } from "../util/clock.ts";
import { readEnv } from "../util/env.ts";
import { resolveRun, withKeyVar } from "./resolve.ts";
import { openRunSession, persistedState, sessionToolContext } from "./session_setup.ts";
import { buildTooling } from "./tooling.ts";
import { buildPrompt } from "./prompt.ts";
import { loadOutputSchema } from "./output_schema.ts";
import { redactingEmit, redactOutcome, secretSafeWriter } from "./secrets.ts";
import { runSecrets } from "../secrets/sources.ts";
import { subAgentRunner } from "./subagent.ts";
import { RunSpend } from "./spend.ts";
import { startTitle } from "./title.ts";

export interface PreparedRun {
  init: InitEvent;
  /** What `--dry-run` prints. */
  describe(): Record<string, unknown>;
  execute(
    prompt: string,
    emit: (e: AgentEvent) => void,
    signal: AbortSignal,
  ): Promise<RunOutcome>;
  close(): Promise<void>;
}

export async function prepareRun(
  args: RunOptions,
  opts: { warn: (line: string) => void },
): Promise<PreparedRun> {
  const resolved = await resolveRun(args);
  preflight(resolved.required);
  const outputSchema = args.outputSchema
    ? await loadOutputSchema(args.outputSchema, resolved.cwd)
    : undefined;
  const { loaded, profile, cwd } = resolved;
  const { config } = loaded;
  let model = resolved.model;
  let redactor = runSecrets(loaded, [model, resolved.smallModel]);
  const warn = (line: string) => opts.warn(redactor.redact(line));

  // A dry run writes nothing: it only shows what a run would be.
  const store = await openSessionStore(loaded.dataDir, {
    ephemeral: args.ephemeral || args.dryRun,
    warn,
  });
  const cleanups: Array<() => Promise<unknown> | unknown> = [() => store.close()];
  // The background title is not waited for: close aborts it if still running.
  const titleAbort = new AbortController();
  let titleDone: Promise<void> = Promise.resolve();
  const close = async () => {
    titleAbort.abort();
    await titleDone;
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    cleanups.length = 0;
  };
  try {
    const session = await openRunSession(store, {
      continue: args.continue,
      session: args.session,
      cwd,
    });
    cleanups.push(() => session.handle.close());
    if (session.resumed && !args.model && session.lastModel) {
      try {
        model = withKeyVar(resolveModel(session.lastModel, { config, env: readEnv }), loaded);
        redactor = runSecrets(loaded, [model, resolved.smallModel]);
      } catch (err) {
        warn(`mopac: cannot restore model ${session.lastModel}: ${(err as Error).message}`);
      }
    }
    if (model.unlisted && args.verbose) {
      warn(
        `mopac: ${model.provider_id}/${model.model_id} is not in the catalog; limits are guesses`,
      );
    }
    const writer = secretSafeWriter(session.handle, redactor);
    const providerOpts = {
      // Relative to --cwd, like --output-schema and the permissions the preflight checked.
      recordPath: args.record && resolve(cwd, args.record),
      replayPath: args.replay && resolve(cwd, args.replay),
      idleTimeoutMs: config.options?.request_timeout
        ? config.options.request_timeout * 1000
        : undefined,
      log: warn,
    };
    const provider = createProvider(model, providerOpts);
    const small = resolved.smallModel === resolved.model
      ? provider
      : createProvider(resolved.smallModel, providerOpts);
    const state = session.state;
    const context = sessionToolContext({
      writer,
      state,
      workspace: loaded.workspaceRoot,
      env: config.env ?? {},
      attachments: model.supports_attachments,
    });
    const spend = new RunSpend(resolved.limits);
    const tooling = await buildTooling({
      config,
      profile,
      workspace: loaded.workspaceRoot,
      dataDir: loaded.dataDir,
      context,
      redactor,
      warn,
      runAgent: subAgentRunner({
        resolved,
        store,
        provider: small,
        redactor,
        warn,
        parentId: session.handle.id,
        spend,
      }),
    });
    cleanups.push(() => tooling.close());
    const basePrompt = await buildPrompt({
      loaded,
      cwd,
      model,
      profile,
      mcpInstructions: tooling.mcp?.instructions() ?? [],
    });
    const system = outputSchema ? `${basePrompt}\n\n${outputSchema.section}` : basePrompt;
    const init: InitEvent = {
      type: "init",
      session_id: session.handle.id,
      model: provider.label,
      agent: profile.name,
      cwd,
      tools: tooling.runner.specs().map((s) => s.name),
      mcp_servers: tooling.mcpStatuses,
    };
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
        permissions: resolved.needs,
      }),
      async execute(prompt, emit, signal) {
        spend.start();
        const redacted = redactingEmit(emit, redactor);
        const safeEmit = Object.assign((e: AgentEvent) => {
          if (e.type === "turn") spend.add(e.usage, e.cost_usd);
          redacted(e);
        }, { flush: () => redacted.flush() });
        const limits = resolved.limits;
        const budget = new AbortController();
        const timeoutMs = limits.timeout_ms;
        const timer = timeoutMs === undefined
          ? undefined
          : setTimeout(() => budget.abort(timeoutReached(timeoutMs)), timeoutMs);
        const titler = resolved.smallModel === resolved.model ? undefined : small;
        if (!session.resumed) {
          titleDone = startTitle(titler, prompt, writer, warn, titleAbort.signal);
        }
        try {
          return redactOutcome(
            redactor,
            safeEmit,
            await runAgent({
              provider,
              tools: tooling.runner,
              store: writer,
              clock: systemClock,
              emit: safeEmit,
              newId: () => crypto.randomUUID(),
              repair: repairForRequest,
              answerCheck: outputSchema?.check,
              summarizer: config.options?.disable_auto_summarize ? undefined : {
                provider: small,
                contextWindow: model.context_window,
                summaryWindow: resolved.smallModel.context_window,
              },
              beforeTurn: tooling.mcp ? async () => void (await tooling.mcp!.refresh()) : undefined,
            }, {
              system,
              history: session.history,
              prompt,
              limits,
              onDeny: args.onDeny,
              signal: AbortSignal.any([signal, budget.signal]),
            }),
          );
        } finally {
          clearTimeout(timer);
          await writer.saveMeta({ model: provider.label, ...persistedState(state) });
        }
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
