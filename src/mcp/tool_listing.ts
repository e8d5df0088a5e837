/**
 * Reads a server's whole tool list: page by page (bounded, since a server may repeat
 * cursors), and only the tools the server's config allows kept. Answers are read
 * more forgivingly than the SDK does: its schemas reject a whole answer for one flaw,
 * so a single tool without an `inputSchema` would cost every tool of the server, an
 * unknown content type the whole result. Here each tool is judged on its own (one
 * without a usable name, or a second one of the same name, or one whose schema stays
 * invalid after normalisation, is dropped with a warning), and results go to
 * mapCallResult as they came, which maps what it knows.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import * as z from "zod";
import { type McpServerConfig, toolAllowed } from "./config.ts";
import { normalizeInputSchema, schemaProblem } from "./schema.ts";

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  /** `execution.taskSupport`: "required" tools are called as tasks (task_call.ts). */
  taskSupport?: string;
}

/**
 * Every allowed tool; [] when the server offers no tools. `log` gets one line per
 * warning; `timeoutMs` bounds each page (the start deadline while the server starts).
 */
export async function listTools(
  client: Client,
  cfg: McpServerConfig,
  log: (line: string) => void,
  timeoutMs: number,
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
      { timeout: timeoutMs },
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

/** Passed to `client.request` so that the SDK hands over the answer unchecked. */
export const ANY_RESULT = z.unknown();

/** Most pages of tools/list read: a server that repeats cursors must not loop forever. */
export const MAX_TOOL_PAGES = 100;

export interface ToolsPage {
  tools: ListedTool[];
  nextCursor?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const optionalString = (v: unknown) => typeof v === "string" ? v : undefined;

/**
 * One page of tools/list. `seen` holds the names of earlier tools (earlier pages too);
 * `warn` gets one line per dropped tool. Throws when the answer has no tool list at all.
 */
export function readToolsPage(
  raw: unknown,
  seen: Set<string>,
  warn: (line: string) => void,
): ToolsPage {
  if (!isObject(raw) || !Array.isArray(raw.tools)) {
    throw new Error(`tools/list answer has no "tools" list: ${preview(raw)}`);
  }
  const tools: ListedTool[] = [];
  raw.tools.forEach((t: unknown, i: number) => {
    const name = isObject(t) ? t.name : undefined;
    if (typeof name !== "string" || name.trim() === "") {
      warn(`tool #${i + 1} of tools/list dropped: it has no name (${preview(t)})`);
      return;
    }
    if (seen.has(name)) {
      warn(`tool ${JSON.stringify(name)} dropped: the server lists that name twice`);
      return;
    }
    seen.add(name);
    const tool = t as Record<string, unknown>;
    const problem = schemaProblem(normalizeInputSchema(tool.inputSchema));
    if (problem) {
      warn(`tool ${JSON.stringify(name)} dropped: its input schema is invalid: ${problem}`);
      return;
    }
    const execution = isObject(tool.execution) ? tool.execution : {};
    tools.push({
      name,
      title: optionalString(tool.title),
      description: optionalString(tool.description),
      inputSchema: tool.inputSchema,
      ...(optionalString(execution.taskSupport) && { taskSupport: String(execution.taskSupport) }),
    });
  });
  const cursor = raw.nextCursor;
  return { tools, nextCursor: typeof cursor === "string" && cursor !== "" ? cursor : undefined };
}

/** A short rendering of something a server sent, for error messages. */
export function preview(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
