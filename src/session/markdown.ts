/**
 * A session as Markdown (`mopac sessions export --format markdown`): readable by a
 * person, in order, with tool calls and results as fenced blocks.
 */
import type { Message, Part } from "../domain/message.ts";
import type { LoadedSession } from "./types.ts";

const RESULT_LIMIT = 4000;

function fence(text: string, lang = ""): string {
  // A fence longer than any backtick run inside, so content cannot close it.
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

function clip(text: string): string {
  if (text.length <= RESULT_LIMIT) return text;
  return `${text.slice(0, RESULT_LIMIT)}\n… (${text.length - RESULT_LIMIT} more characters)`;
}

function prettyJson(input: string): string {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

function renderPart(p: Part): string | undefined {
  switch (p.type) {
    case "text":
      return p.text.trim() === "" ? undefined : p.text;
    case "reasoning":
      return p.text.trim() === "" ? undefined : p.text.split("\n").map((l) => `> ${l}`).join("\n");
    case "tool_call":
      return `**Tool call** \`${p.name}\` (${p.id})\n\n${fence(prettyJson(p.input), "json")}`;
    case "tool_result": {
      const label = p.denied ? "denied" : p.is_error ? "error" : "result";
      return `**Tool ${label}** \`${p.name}\` (${p.tool_call_id})\n\n${fence(clip(p.content))}`;
    }
    case "image":
      return `*[image ${p.mime_type}, ${Math.round(p.data.length * 0.75)} bytes]*`;
    case "finish":
      return p.reason === "stop" || p.reason === "tool_calls"
        ? undefined
        : `*(ended: ${p.reason}${p.message ? ` — ${p.message}` : ""})*`;
  }
}

const HEADINGS: Record<Message["role"], string> = {
  system: "System",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
};

export function sessionToMarkdown(s: LoadedSession): string {
  const title = s.meta.title ?? s.header.title ?? "Untitled session";
  const lines = [
    `# ${title}`,
    "",
    `- session: ${s.header.id} (${s.header.short_id})`,
    `- created: ${new Date(s.header.created_at).toISOString()}`,
    `- cwd: ${s.header.cwd}`,
  ];
  if (s.header.parent_id) lines.push(`- parent: ${s.header.parent_id}`);
  if (s.header.forked_from) lines.push(`- forked from: ${s.header.forked_from}`);
  if (s.last_model) lines.push(`- model: ${s.last_model}`);
  for (const m of s.messages) {
    const body = m.parts.map(renderPart).filter((x): x is string => x !== undefined);
    if (body.length === 0) continue;
    const model = m.role === "assistant" && m.model ? ` (${m.model})` : "";
    lines.push("", `## ${HEADINGS[m.role]}${model}`, "", body.join("\n\n"));
  }
  if (s.changes.length > 0) {
    lines.push("", "## Files changed", "");
    for (const c of s.changes) {
      const kind = c.change.before === null
        ? "created"
        : c.change.after === null
        ? "deleted"
        : "edited";
      lines.push(`- ${c.change.path} (${kind}, ${new Date(c.at).toISOString()})`);
    }
  }
  return lines.join("\n") + "\n";
}
