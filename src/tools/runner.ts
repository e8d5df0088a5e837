/**
 * The one path of every tool call, built-in or MCP: parse the arguments, ask the
 * gate, run, truncate. Anything that goes wrong here becomes a tool error the model
 * can read; only the loop decides whether a run ends.
 */
import type { ToolCallPart, ToolResultPart, ToolSpec } from "../domain/message.ts";
import type { Gate } from "../permission/types.ts";
import type { Denial } from "../domain/tool_records.ts";
import { ToolInputError } from "../util/errors.ts";
import { type TruncateLimits, truncateOutput } from "./truncate.ts";
import { MAX_ARGUMENT_DEPTH, nestingDepth } from "./define.ts";
import type { Tool, ToolContext, ToolRunner, ToolRunResult } from "./types.ts";

export interface RunnerOptions {
  /** All tools that exist; the gate decides which are offered. */
  tools: () => Tool[];
  gate: Gate;
  /** The context of this session, minus the per-call signal. */
  context: Omit<ToolContext, "signal">;
  limits?: TruncateLimits;
  /** Summarises arguments for denial records (secrets masked). */
  summarize: (input: unknown) => string;
}

export function createToolRunner(opts: RunnerOptions): ToolRunner {
  const offered = () => opts.tools().filter((t) => opts.gate.allows(t.name, t.mcp));
  return {
    specs(): ToolSpec[] {
      return offered()
        .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async run(call: ToolCallPart, signal: AbortSignal): Promise<ToolRunResult> {
      const tool = opts.tools().find((t) => t.name === call.name);
      const fail = (content: string, denied = false) => errorResult(call, content, denied);

      let raw: unknown;
      if (nestingDepth(call.input) > MAX_ARGUMENT_DEPTH) {
        return {
          result: fail(`Invalid tool arguments: nested over ${MAX_ARGUMENT_DEPTH} levels deep`),
        };
      }
      try {
        raw = call.input.trim() === "" ? {} : JSON.parse(call.input);
      } catch (err) {
        return { result: fail(`Invalid JSON in tool arguments: ${(err as Error).message}`) };
      }
      const ctx: ToolContext = { ...opts.context, signal };

      let input: unknown = raw;
      let access = {};
      try {
        if (tool) {
          input = tool.parse(raw);
          access = (await tool.access?.(input, ctx)) ?? {};
        }
      } catch (err) {
        if (err instanceof ToolInputError) {
          return { result: fail(`Invalid arguments for ${call.name}: ${err.message}`) };
        }
        return { result: fail(`${call.name} failed: ${describe(err)}`) };
      }

      const decision = await opts.gate.check({
        tool: call.name,
        mcp: tool?.mcp,
        input,
        access,
        session_id: opts.context.session_id,
      });
      if (!decision.allow) {
        const denial: Denial = {
          tool: call.name,
          tool_call_id: call.id,
          input_summary: opts.summarize(input),
          rule: decision.rule,
          reason: decision.reason,
        };
        return {
          result: fail(`Permission denied: ${decision.reason} (rule: ${decision.rule})`, true),
          denial,
        };
      }
      if (!tool) return { result: fail(`Unknown tool: ${call.name}`) };

      try {
        const out = await tool.run(input, ctx);
        return {
          result: {
            type: "tool_result",
            tool_call_id: call.id,
            name: call.name,
            content: truncateOutput(out.content, opts.limits),
            is_error: out.is_error === true,
            ...(out.images?.length ? { images: out.images } : {}),
          },
          usage: out.usage,
          cost_usd: out.cost_usd,
          ...(out.denials?.length ? { nested_denials: out.denials } : {}),
        };
      } catch (err) {
        if (signal.aborted) return { result: cancelledResult(call) };
        return { result: fail(`${call.name} failed: ${describe(err)}`) };
      }
    },
  };
}

function errorResult(call: ToolCallPart, content: string, denied = false): ToolResultPart {
  return {
    type: "tool_result",
    tool_call_id: call.id,
    name: call.name,
    content,
    is_error: true,
    ...(denied ? { denied } : {}),
  };
}

/** The result of a call the run's interruption stopped (or never let start). */
export function cancelledResult(call: ToolCallPart): ToolResultPart {
  return errorResult(call, "Tool call cancelled: the run was interrupted.");
}

function describe(err: unknown): string {
  if (err instanceof Deno.errors.NotCapable) {
    return `${err.message} (mopac's Deno sandbox does not allow this)`;
  }
  return err instanceof Error ? err.message : String(err);
}
