/**
 * The one path of every tool call, built-in or MCP, and the contract the loop
 * calls: parse the arguments, ask the gate, run, truncate. Anything that goes wrong
 * here becomes a tool error the model can read; only the loop decides whether a run
 * ends.
 */
import type { ToolCallPart, ToolResultPart, ToolSpec } from "../domain/message.ts";
import type { Decision, Gate } from "../permission/types.ts";
import type { Denial } from "../domain/tool_records.ts";
import { ToolInputError } from "../util/errors.ts";
import { type TruncateLimits, truncateOutput } from "../tools/truncate.ts";
import type { Tool, ToolContext } from "../tools/types.ts";
import type { Usage } from "../domain/usage.ts";
import { nearMisses } from "../util/similar.ts";

/** What running one call gives the loop: the result part, and what it costs or refused. */
export interface ToolRunResult {
  result: ToolResultPart;
  /** Set when the gate refused the call. */
  denial?: Denial;
  /** Model usage spent inside the tool (sub-agents); counts against the run's limits. */
  usage?: Usage;
  cost_usd?: number;
  /** Denials inside the tool (sub-agents), reported with the run's own. */
  nested_denials?: Denial[];
  /** A hook halted the run (its reason): the loop ends with the gate's exit code. */
  halt?: string;
}

/** What the agent loop sees of the tools. */
export interface ToolRunner {
  /** The tools offered to the model, sorted by name. */
  specs(): ToolSpec[];
  /** Runs one call. Contract: never throws; every failure is an error result. */
  run(call: ToolCallPart, signal: AbortSignal): Promise<ToolRunResult>;
  /**
   * The model has begun a call of `name`: an offered tool may start what its calls
   * need (the bash tool's jail) while the arguments stream. Never throws.
   */
  warm(name: string): void;
}

/** Deeper arguments are refused: walking them (redaction, events) would overflow the stack. */
export const MAX_ARGUMENT_DEPTH = 100;

/** How deeply JSON `text` nests arrays and objects, found by a scan (no recursion). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export interface RunnerOptions {
  /** All tools that exist; the gate decides which are offered. */
  tools: () => Tool[];
  gate: Gate;
  /** The context of this session, minus the per-call signal. */
  context: Omit<ToolContext, "signal">;
  limits?: TruncateLimits;
  /** Summarises arguments for denial records (secrets masked). */
  summarize: (input: unknown) => string;
  /**
   * Applied to every result before the model sees it (known secret values replaced):
   * an MCP server or a command that prints its environment must not hand a key over.
   */
  redact?: (text: string) => string;
}

export function createToolRunner(opts: RunnerOptions): ToolRunner {
  const runner = unredactedRunner(opts);
  const redact = opts.redact;
  if (!redact) return runner;
  return {
    specs: () => runner.specs(),
    warm: (name) => runner.warm(name),
    async run(call, signal) {
      const ran = await runner.run(call, signal);
      const result = { ...ran.result, content: redact(ran.result.content) };
      const denial = ran.denial && { ...ran.denial, reason: redact(ran.denial.reason) };
      return { ...ran, result, ...(denial ? { denial } : {}) };
    },
  };
}

function unredactedRunner(opts: RunnerOptions): ToolRunner {
  const offered = () => opts.tools().filter((t) => opts.gate.allows(t.name, t.mcp));
  return {
    specs(): ToolSpec[] {
      return offered()
        .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    warm(name: string): void {
      const tool = opts.tools().find((t) => t.name === name);
      if (!tool?.warm || !opts.gate.allows(tool.name, tool.mcp)) return;
      // Only a head start: the call itself starts what it needs and reports failures.
      try {
        Promise.resolve(tool.warm()).catch(() => {});
      } catch {
        // thrown before its promise
      }
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

      // A name no tool has is a mistake the model can fix, not a refusal: it is no
      // denial, so `--on-deny stop` does not end the run over a Codex habit.
      if (!tool) return { result: fail(noSuchTool(call.name, offered())) };
      let input: unknown = raw;
      let access = {};
      try {
        input = tool.parse(raw);
        access = (await tool.access?.(input, ctx)) ?? {};
      } catch (err) {
        if (err instanceof ToolInputError) {
          return { result: fail(`Invalid arguments for ${call.name}: ${err.message}`) };
        }
        return { result: fail(`${call.name} failed: ${describe(err)}`) };
      }

      let decision = await opts.gate.check({
        tool: call.name,
        mcp: tool.mcp,
        input,
        access,
        session_id: opts.context.session_id,
      });
      if (decision.allow && decision.updated_input !== undefined) {
        // A hook's rewrite runs only when it is a valid input that passes the rules
        // again; the original input never runs in its place.
        const rewritten = await rewrite(tool, raw, decision.updated_input, ctx, opts.gate, call);
        if (!rewritten.decision.allow) decision = rewritten.decision;
        else {
          input = rewritten.input;
          decision = { allow: true, context: decision.context };
        }
      }
      if (!decision.allow) {
        const denial: Denial = {
          tool: call.name,
          tool_call_id: call.id,
          input_summary: opts.summarize(input),
          rule: decision.rule,
          reason: decision.reason,
        };
        // A tool the profile does not offer: say what it does offer, so the model moves on.
        const offers = decision.rule === "not_allowed"
          ? ` Available: ${offered().map((t) => t.name).sort().join(", ") || "none"}.`
          : "";
        return {
          result: fail(
            `Permission denied: ${decision.reason} (rule: ${decision.rule}).${offers}`,
            true,
          ),
          denial,
          ...(decision.halt ? { halt: decision.reason } : {}),
        };
      }
      try {
        const out = await tool.run(input, ctx);
        return {
          result: {
            type: "tool_result",
            tool_call_id: call.id,
            name: call.name,
            // Redacted before the cut too: a secret across the cut would leave half of it.
            content: truncateOutput(opts.redact?.(out.content) ?? out.content, opts.limits) +
              (decision.context ? `\n\n${decision.context}` : ""),
            is_error: out.is_error === true,
            ...(out.images?.length ? { images: out.images } : {}),
          },
          usage: out.usage,
          cost_usd: out.cost_usd,
          ...(out.denials?.length ? { nested_denials: out.denials } : {}),
          ...(out.halt !== undefined ? { halt: out.halt } : {}),
        };
      } catch (err) {
        if (signal.aborted) return { result: cancelledResult(call) };
        return { result: fail(`${call.name} failed: ${describe(err)}`) };
      }
    },
  };
}

/** Tool names of other harnesses that models are trained on, and the tools that do that here. */
const OTHER_HARNESS_NAMES: Record<string, string[]> = {
  apply_patch: ["edit", "multiedit", "write"],
  shell: ["bash"],
  exec_command: ["bash"],
  run_shell_command: ["bash"],
  read_file: ["view"],
  read: ["view"],
  write_file: ["write"],
  str_replace: ["edit"],
  list_dir: ["ls"],
  web_fetch: ["fetch"],
  task: ["agent"],
  todo_write: ["todos"],
};

function noSuchTool(name: string, offered: Tool[]): string {
  const names = offered.map((t) => t.name).sort();
  const key = name.toLowerCase();
  const near = [...new Set([...(OTHER_HARNESS_NAMES[key] ?? []), ...nearMisses(name, names)])]
    .filter((n) => names.includes(n));
  const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
  return `No tool named "${name}".${hint} Available: ${names.join(", ") || "none"}.`;
}

/** Applies a hook's patch to the model's arguments, then parses and gates the result again. */
async function rewrite(
  tool: Tool,
  raw: unknown,
  patch: Record<string, unknown>,
  ctx: ToolContext,
  gate: Gate,
  call: ToolCallPart,
): Promise<{ input: unknown; decision: Decision }> {
  const base = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
  try {
    const input = tool.parse({ ...base, ...patch });
    const access = (await tool.access?.(input, ctx)) ?? {};
    const decision = await gate.check({
      tool: call.name,
      mcp: tool.mcp,
      input,
      access,
      session_id: ctx.session_id,
      rewritten: true,
    });
    return {
      input,
      decision: decision.allow
        ? decision
        : { ...decision, reason: `the input a hook rewrote is refused: ${decision.reason}` },
    };
  } catch (err) {
    return {
      input: raw,
      decision: {
        allow: false,
        rule: "hooks.PreToolUse",
        reason: `the input a hook rewrote is not valid (${describe(err)}); the call was not run`,
      },
    };
  }
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
