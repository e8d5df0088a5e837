/**
 * Adapter between the MCP conformance suite (`npm:@modelcontextprotocol/conformance`)
 * and mopac's MCP client. The suite runs `<command> <server-url>` with the scenario in
 * MCP_CONFORMANCE_SCENARIO; this connects through `createMcpManager` exactly as a
 * headless run would (Streamable HTTP, required server), then calls every listed tool
 * with arguments made up from its schema, and exits 0 only when all of that worked.
 */
import { createMcpManager } from "../../src/mcp/manager.ts";
import { toolContext } from "../_support/mcp_helpers.ts";

/** A value of the right type for each required property, so `add_numbers` gets numbers. */
function sampleArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string; default?: unknown }>;
  const required = (schema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const key of required) {
    const prop = props[key] ?? {};
    args[key] = prop.default ??
      ({ number: 2, integer: 2, boolean: true, string: "test", array: [], object: {} } as const)[
        prop.type as "number"
      ] ?? "test";
  }
  return args;
}

const [rawUrl] = Deno.args;
if (!rawUrl) {
  console.error("usage: conformance_client.ts SERVER_URL");
  Deno.exit(2);
}
// The scenario servers are made to listen on 127.0.0.1 only; "localhost" could be ::1.
const url = rawUrl.replace("://localhost:", "://127.0.0.1:");
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "(none)";
const logDir = await Deno.makeTempDir();
const manager = createMcpManager(
  { conformance: { type: "http", url, required: true, timeout: 10 } },
  { logDir, log: (line) => console.error(line), clientName: "mopac-conformance" },
);

let failed = false;
try {
  await manager.start();
  manager.assertRequired();
  console.log(`scenario ${scenario}: connected`);
  for (const tool of manager.tools()) {
    const out = await tool.run(tool.parse(sampleArgs(tool.parameters)), toolContext());
    console.log(`${tool.mcp?.tool}: ${out.is_error ? "ERROR " : ""}${out.content}`);
    if (out.is_error) failed = true;
  }
} catch (err) {
  console.error(`conformance client failed: ${err instanceof Error ? err.message : err}`);
  failed = true;
} finally {
  await manager.close();
  await Deno.remove(logDir, { recursive: true });
}
Deno.exit(failed ? 1 : 0);
