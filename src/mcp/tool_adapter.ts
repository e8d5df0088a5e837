/**
 * Presents one MCP server tool as a mopac `Tool`, so it goes through the same runner
 * and permission gate as the built-in tools (the gate reads `mcp`). Failures the
 * model can act on (timeouts, server errors, a lost connection) come back as tool
 * errors, never as exceptions that would end the run.
 */
import { ToolInputError } from "../util/errors.ts";
import type { Tool, ToolContext, ToolOutput } from "../tools/types.ts";
import type { McpConnection } from "./connection.ts";
import type { ListedTool } from "./tool_listing.ts";
import { mapCallResult } from "./result.ts";
import { normalizeInputSchema } from "./schema.ts";
import { errorText, McpCallError } from "./errors.ts";

export function adaptTool(
  name: string,
  conn: McpConnection,
  listed: ListedTool,
): Tool<Record<string, unknown>> {
  const parameters = normalizeInputSchema(listed.inputSchema);
  const description = listed.description?.trim() || listed.title?.trim() ||
    `Tool "${listed.name}" of MCP server "${conn.name}".`;

  return {
    name,
    description,
    parameters,
    mcp: { server: conn.name, tool: listed.name },

    parse(input: unknown): Record<string, unknown> {
      if (input === undefined || input === null || input === "") return {};
      if (typeof input === "string") {
        try {
          input = JSON.parse(input);
        } catch {
          throw new ToolInputError("the arguments must be a JSON object");
        }
      }
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw new ToolInputError("the arguments must be a JSON object");
      }
      return input as Record<string, unknown>;
    },

    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      try {
        const result = await conn.callTool(listed.name, args, ctx.signal);
        const out = mapCallResult(result, ctx.attachments);
        // A server that echoes its OAuth token must not hand it to the model.
        if (conn.oauth) out.content = conn.oauth.redact(out.content);
        if (out.is_error && out.content.trim() === "") {
          // An empty error tells the model nothing, not even whose error it was.
          out.content = `MCP server "${conn.name}" reported that tool "${listed.name}" failed, ` +
            "without saying why";
        }
        return out;
      } catch (err) {
        if (err instanceof McpCallError) return { content: err.message, is_error: true };
        return { content: `MCP tool failed: ${errorText(err)}`, is_error: true };
      }
    },
  };
}
