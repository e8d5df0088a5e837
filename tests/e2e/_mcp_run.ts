/** Helpers of tests/e2e/mcp_run_test.ts: MCP workspaces, request views, process checks. */
import type { ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { FIXTURE, processesMatching } from "../_support/mcp_helpers.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

export const DENO = Deno.execPath();

/** A workspace whose config has `mcp` servers; the flags also allow the servers' commands. */
export async function mcpWorkspace(
  turns: ScriptedTurn[] | ((req: ParsedRequest, i: number) => ScriptedTurn | undefined),
  mcp: Record<string, unknown>,
  extra: { config?: Record<string, unknown>; net?: string[]; run?: string[] } = {},
): Promise<Workspace> {
  const ws = await workspace({ turns }, { mcp, ...extra.config });
  ws.perms.net!.push(...(extra.net ?? []));
  ws.perms.run!.push(DENO, ...(extra.run ?? []));
  return ws;
}

export const toolNames = (req: ParsedRequest) =>
  ((req.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
export const toolMessages = (req: ParsedRequest) =>
  (req.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "tool");
export const systemText = (req: ParsedRequest) =>
  JSON.stringify((req.messages as Array<{ role: string }>).find((m) => m.role === "system"));

/** Live (non-zombie) processes whose command line holds `marker`. */
export async function live(marker: string): Promise<string[]> {
  return (await processesMatching(marker)).filter((l) => !/^\s*\d+\s+\d+\s+Z/.test(l));
}

/** The live `sleep <marker>` grandchild itself (not the bash whose script names it). */
export async function sleepers(marker: string): Promise<string[]> {
  return (await live(marker)).filter((l) => l.endsWith(` sleep ${marker}`));
}

/**
 * After a failed assertion mopac may still run: stop it the way a user would, then
 * end whatever of the marked server group is left, so no test leaks processes.
 */
export async function cleanup(child: Deno.ChildProcess, marker: string): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // Already exited: the usual case.
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    child.status,
    new Promise((r) => timer = setTimeout(r, 10_000)),
  ]);
  clearTimeout(timer);
  for (const row of await live(marker)) {
    try {
      Deno.kill(-Number(row.trim().split(/\s+/)[1]), "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/** A server behind `bash -c` with a grandchild `sleep <marker>` in the same group. */
export function wrappedServer(marker: string, serverArgs = "") {
  return {
    command: "bash",
    // `; wait` keeps bash as the parent: the server and `sleep` are its children.
    args: [
      "-c",
      `sleep ${marker} & "${DENO}" ${DENO_RUN.join(" ")} -A ${FIXTURE} stdio ${serverArgs}; wait`,
    ],
    enabled_tools: ["echo", "hang"],
    start_timeout: START_TIMEOUT_S,
    // A hanging call ends when the test stops mopac, not on a per-call timer.
    timeout: START_TIMEOUT_S,
  };
}

export type Event = Record<string, unknown>;

/**
 * Reads a running mopac's stream-json events as they come: `until` waits for an
 * event, `finish` collects the rest, the exit code and stderr. Each kills a mopac
 * that hangs, after as long as its servers may take to start (a safety net, not a
 * timing check: mopac and its servers start slowly on a loaded machine).
 */
const HANG_MS = START_TIMEOUT_S * 1000;

export function eventStream(child: Deno.ChildProcess) {
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const pending: Event[] = [];
  const read = async (): Promise<boolean> => {
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== "") pending.push(JSON.parse(line));
    }
    return true;
  };
  return {
    async until(match: (e: Event) => boolean): Promise<Event> {
      const deadline = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
      try {
        for (;;) {
          while (pending.length > 0) {
            const e = pending.shift()!;
            if (match(e)) return e;
          }
          if (!(await read())) throw new Error(`stream ended early: ${await stderr}`);
        }
      } finally {
        clearTimeout(deadline);
      }
    },
    async finish(): Promise<{ code: number; events: Event[]; stderr: string }> {
      const deadline = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
      try {
        while (await read());
        const { code } = await child.status;
        return { code, events: pending.splice(0), stderr: await stderr };
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
