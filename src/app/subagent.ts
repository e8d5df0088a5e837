/**
 * Runs `agent` tool calls: each is a child session (parent set, never picked by
 * `-C`) with the `task` profile and the small model unless config says otherwise.
 * Its calls pass the same kind of gate; its usage is reported back to the parent.
 */
import type { Provider } from "../provider/types.ts";
import type { SessionStore } from "../session/mod.ts";
import { repairForRequest } from "../session/mod.ts";
import type { AgentRunner } from "../tools/agent.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { resolveProfile } from "../permission/profiles.ts";
import { resolveModel } from "../catalog/mod.ts";
import { createProvider } from "../provider/provider.ts";
import { runAgent } from "../agent/loop.ts";
import { systemClock } from "../util/clock.ts";
import { readEnv } from "../util/env.ts";
import type { ResolvedRun } from "./resolve.ts";
import { buildTooling } from "./tooling.ts";
import { buildPrompt } from "./prompt.ts";
import { emptyState, sessionToolContext } from "./session_setup.ts";
import { secretSafeWriter } from "./secrets.ts";
import { promptTitle } from "./title.ts";
import type { RunSpend } from "./spend.ts";

const SUB_AGENT_PROFILE = "task";

export function subAgentRunner(opts: {
  resolved: ResolvedRun;
  store: SessionStore;
  /** The small model's provider, used unless the task profile names a model. */
  provider: Provider;
  redactor: Redactor;
  warn: (line: string) => void;
  parentId: string;
  /** The parent run's spend: a child gets what is left of its limits and adds to it. */
  spend: RunSpend;
}): AgentRunner {
  const { resolved, store, redactor, warn } = opts;
  const { loaded } = resolved;
  // Every child of a run gets the same system prompt: gather it (git, files) once.
  let system: Promise<string> | undefined;
  return async (prompt, parentCtx) => {
    const profile = resolveProfile(SUB_AGENT_PROFILE, loaded.config);
    const model = profile.model
      ? resolveModel(profile.model, { config: loaded.config, env: readEnv })
      : resolved.smallModel;
    const provider = profile.model ? createProvider(model, { log: warn }) : opts.provider;
    system ??= buildPrompt({
      loaded,
      cwd: resolved.cwd,
      model,
      profile,
      mcpInstructions: [],
      subAgent: true,
    });
    const handle = await store.create({ cwd: resolved.cwd, parent_id: opts.parentId });
    const writer = secretSafeWriter(handle, redactor);
    const tooling = await buildTooling({
      config: loaded.config,
      profile,
      workspace: loaded.workspaceRoot,
      dataDir: loaded.dataDir,
      context: sessionToolContext({
        writer,
        state: emptyState(resolved.cwd),
        workspace: loaded.workspaceRoot,
        env: loaded.config.env ?? {},
        attachments: parentCtx.attachments,
      }),
      redactor,
      warn,
      mcp: false,
    });
    try {
      await writer.saveMeta({ title: promptTitle(prompt), model: provider.label });
      const outcome = await runAgent({
        provider,
        tools: tooling.runner,
        store: writer,
        clock: systemClock,
        emit: () => {},
        newId: () => crypto.randomUUID(),
        repair: repairForRequest,
      }, {
        system: await system,
        history: [],
        prompt,
        limits: { ...opts.spend.remaining(), max_turns: resolved.limits.max_turns ?? 50 },
        onDeny: "continue",
        signal: parentCtx.signal,
      });
      opts.spend.add(outcome.usage, outcome.cost_usd);
      return {
        text: outcome.error
          ? `${outcome.text}\n\n[sub-agent stopped: ${outcome.error.message}]`.trim()
          : outcome.text,
        is_error: outcome.error !== undefined,
        session_id: handle.id,
        usage: outcome.usage,
        cost_usd: outcome.cost_usd,
        denials: outcome.denials,
      };
    } finally {
      await tooling.close();
      await handle.close();
    }
  };
}
