/**
 * Starts an MCP server through `bash -c` (with two grandchildren `sleep MARKER`) and
 * exits without closing the manager, as a crash or a plain Deno.exit would. It waits
 * until both sleeps run (the command marks it in LOGDIR), so the test that checks
 * nothing is left always has something that could have been. Usage:
 * `deno run --allow-run=bash --allow-read --allow-write mcp_exit_without_close.ts MARKER LOGDIR`.
 */
import { createMcpManager } from "../../src/mcp/manager.ts";

const [marker, logDir] = Deno.args;
const started = `${logDir}/sleeps-started`;
const manager = createMcpManager({
  wrapped: {
    command: "bash",
    args: ["-c", `sleep ${marker} & sleep ${marker} & touch ${started}; wait`],
  },
}, { logDir });
void manager.start();
for (let i = 0; !(await Deno.stat(started).then(() => true, () => false)); i++) {
  if (i > 2_000) throw new Error("the wrapped server's sleeps did not start within 20 s");
  await new Promise((r) => setTimeout(r, 10));
}
console.log("exiting");
Deno.exit(0);
