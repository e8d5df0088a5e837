/**
 * Reads a server's tools/list and tools/call answers more forgivingly than the SDK.
 * The SDK's schemas reject a whole answer for one flaw: a single tool without an
 * `inputSchema` would cost every tool of the server, an unknown content type the
 * whole result. Here each tool is judged on its own (one without a usable name, or a
 * second one of the same name, or one whose schema stays invalid after normalisation,
 * is dropped with a warning), and results go to mapCallResult as they came, which maps
 * what it knows.
 */
import { z } from "zod";
import type { ListedTool } from "./tool_listing.ts";
import { normalizeInputSchema } from "./schema.ts";
import { schemaProblem } from "./schema_check.ts";

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
    tools.push({
      name,
      title: optionalString(tool.title),
      description: optionalString(tool.description),
      inputSchema: tool.inputSchema,
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
