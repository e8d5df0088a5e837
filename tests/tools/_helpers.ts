/**
 * Test support for the file tools: a temp workspace, a ToolContext that records
 * what the tools report, and a call helper that goes parse → access → run like
 * the runner does.
 */
import * as path from "node:path";
import type { Access } from "../../src/permission/types.ts";
import type { Tool, ToolContext, ToolOutput } from "../../src/tools/types.ts";
import type { FileChange } from "../../src/domain/tool_records.ts";
import { testToolContext } from "../_support/tool_context.ts";

export interface TestContext extends ToolContext {
  changes: FileChange[];
  stateChanges: number;
}

export function makeContext(workspace: string, opts: { attachments?: boolean } = {}): TestContext {
  const ctx: TestContext = {
    ...testToolContext(workspace, { session_id: "test-session", ...opts }),
    changes: [],
    stateChanges: 0,
    recordChange(change) {
      ctx.changes.push(change);
    },
    stateChanged() {
      ctx.stateChanges++;
    },
  };
  return ctx;
}

/** A fresh real (symlink-free) temp folder, removed by the returned cleanup. */
export async function tempWorkspace(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-tools-" }));
  return { dir, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

/** Runs one call the way the runner does: parse, access, run. */
export async function call(
  tool: Tool,
  raw: unknown,
  ctx: ToolContext,
): Promise<{ out: ToolOutput; access: Access }> {
  const input = tool.parse(raw);
  const access = (await tool.access?.(input, ctx)) ?? {};
  const out = await tool.run(input, ctx);
  return { out, access };
}

/** Writes files (creating folders) from a map of relative path → content. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>) {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(file, content);
    else await Deno.writeFile(file, content);
  }
}

/** Sets a file's mtime (seconds since epoch) so newest-first orders are predictable. */
export async function touch(file: string, seconds: number) {
  await Deno.utime(file, seconds, seconds);
}
