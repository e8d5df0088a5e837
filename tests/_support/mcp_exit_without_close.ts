/**
 * Starts an MCP server through `bash -c` (with a grandchild `sleep MARKER`) and exits
 * without closing the manager, as a crash or a plain Deno.exit would. Usage:
 * `deno run --allow-run=bash --allow-read --allow-write mcp_exit_without_close.ts MARKER LOGDIR`.
 */
import { createMcpManager } from "../../src/mcp/manager.ts";

const [marker, logDir] = Deno.args;
const manager = createMcpManager({
  wrapped: { command: "bash", args: ["-c", `sleep ${marker} & sleep ${marker}; wait`] },
}, { logDir });
void manager.start();
await new Promise((r) => setTimeout(r, 300));
console.log("exiting");
Deno.exit(0);
