/**
 * Reads a server's whole tool list: page by page (bounded, since a server may repeat
 * cursors), each page judged leniently (see lenient.ts), and only the tools the
 * server's config allows kept.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { type McpServerConfig, timeoutMs, toolAllowed } from "./config.ts";
import { ANY_RESULT, MAX_TOOL_PAGES, readToolsPage } from "./lenient.ts";

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

/** Every allowed tool; [] when the server offers no tools. `log` gets one line per warning. */
export async function listTools(
  client: Client,
  cfg: McpServerConfig,
  log: (line: string) => void,
): Promise<ListedTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const out: ListedTool[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  const cursors = new Set<string>();
  do {
    // Not client.listTools: its schema rejects the whole list for one bad tool.
    const raw = await client.request(
      { method: "tools/list", params: cursor ? { cursor } : {} },
      ANY_RESULT,
      { timeout: timeoutMs(cfg) },
    );
    const page = readToolsPage(raw, seen, log);
    for (const t of page.tools) {
      if (toolAllowed(cfg, t.name)) out.push(t);
    }
    cursor = page.nextCursor;
    if (cursor && (cursors.has(cursor) || cursors.size >= MAX_TOOL_PAGES)) {
      log(`tools/list pages keep coming; stopped after ${cursors.size + 1}`);
      break;
    }
    if (cursor) cursors.add(cursor);
  } while (cursor);
  return out;
}
