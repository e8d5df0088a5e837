/** A ToolContext for tests that call tools directly: fresh state, nothing recorded. */
import type { ToolContext } from "../../src/tools/types.ts";

export function testToolContext(
  workspace: string,
  over: Partial<ToolContext> & { shellCwd?: string } = {},
): ToolContext {
  const { shellCwd, ...given } = over;
  // An option passed as undefined keeps the default.
  const rest = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return {
    session_id: "test",
    workspace,
    state: { viewed: new Map(), todos: [], shell: { cwd: shellCwd ?? workspace, env: {} } },
    signal: new AbortController().signal,
    env: {},
    attachments: false,
    recordChange() {},
    stateChanged() {},
    ...rest,
  };
}
