/**
 * The real gate deciding on bash calls as the tool runner asks it: the bash tool's
 * own `access()` (parse, folders, redirection paths resolved in a real temp
 * workspace) and `createGate` with a resolved profile. Nothing is run.
 */
import { join } from "node:path";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import type { AgentInput } from "../../src/permission/config_shape.ts";
import type { Decision } from "../../src/permission/types.ts";
import { createBashTool } from "../../src/tools/bash.ts";
import { JobManager } from "../../src/tools/shell/jobs.ts";
import { testToolContext } from "../_support/tool_context.ts";

export interface ShellGate {
  /** The workspace (real path): has .env, secrets/, certs/ and src/. */
  ws: string;
  /** A folder outside the workspace. */
  outside: string;
  decide(command: string, options?: { working_dir?: string; cwd?: string }): Promise<Decision>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** `agent` undefined is the built-in coder; otherwise a profile `gate` with bash and these rules. */
export async function shellGate(agent?: Omit<AgentInput, "allowed_tools">): Promise<ShellGate> {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_shell_gate_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_shell_out_" }));
  await Deno.writeTextFile(join(ws, ".env"), "TOKEN=secret\n");
  await Deno.mkdir(join(ws, "src"));
  await Deno.mkdir(join(ws, "secrets"));
  await Deno.writeTextFile(join(ws, "secrets", "key.txt"), "k\n");
  await Deno.writeTextFile(join(outside, "private.txt"), "p\n");
  // A link inside the workspace that leads out of it.
  await Deno.symlink(outside, join(ws, "escape"));
  const jobs = new JobManager();
  const profile = resolveProfile(agent ? "gate" : undefined, {
    agents: agent ? { gate: { allowed_tools: ["bash"], ...agent } } : {},
  });
  const gate = createGate({ profile, workspace: ws });
  const tool = createBashTool({ jobs });
  return {
    ws,
    outside,
    async decide(command, options = {}) {
      const ctx = testToolContext(ws, { shellCwd: options.cwd });
      const input = tool.parse({ command, working_dir: options.working_dir });
      const access = await tool.access!(input, ctx);
      return await gate.check({ tool: "bash", input, access });
    },
    async [Symbol.asyncDispose]() {
      await jobs.dispose();
      await Deno.remove(ws, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

/** Every script of `corpus` that the gate decides otherwise than `expect` (rule prefix or allow). */
export async function mismatches(
  gate: ShellGate,
  corpus: ReadonlyArray<readonly [string, string]>,
): Promise<string[]> {
  const out: string[] = [];
  for (const [script, expect] of corpus) {
    const s = script.replaceAll("$OUT", gate.outside).replaceAll("$WS", gate.ws);
    const d = await gate.decide(s);
    if (expect === "allow") {
      if (!d.allow) out.push(`denied ${JSON.stringify(s)}: ${d.rule} ${d.reason}`);
    } else if (d.allow) out.push(`allowed ${JSON.stringify(s)} (expected ${expect})`);
    else if (!d.rule.startsWith(expect)) {
      out.push(`${JSON.stringify(s)}: ${d.rule}, expected ${expect} (${d.reason})`);
    }
  }
  return out;
}
