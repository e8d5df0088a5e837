/**
 * `mopac sessions list|show|export|rm|search|reindex`: look at and manage the sessions
 * of a data dir. Unknown or ambiguous ids throw UsageError, a session in use throws
 * SessionBusyError (both exit 2 through the exit-code table); bad flags return 2 here.
 */
import { parseArgs } from "node:util";
import type { Io } from "../io.ts";
import { EXIT } from "../exit_codes.ts";
import { splitCommon } from "../flags.ts";
import { SESSIONS_HELP } from "../help.ts";
import { SESSIONS_OPTIONS } from "../command_specs.ts";
import { didYouMean, flagSuggestion } from "../suggest.ts";
import {
  describeSession,
  type LoadedSession,
  openSessionStore,
  type SessionStore,
  type SessionSummary,
  sessionToMarkdown,
} from "../../session/mod.ts";
import type { Message } from "../../domain/message.ts";

export interface SessionsCommandIo {
  stdout(s: string): void;
  stderr(s: string): void;
  dataDir: string;
}

const time = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
const count = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : String(n));

/** The command as the CLI dispatches it: config picks the data dir. */
export async function sessionsCommand(argv: string[], io: Io): Promise<number> {
  const { rest, load } = splitCommon(argv, io);
  const { dataDir } = await load();
  return runSessionsCommand(rest, { stdout: (s) => io.out(s), stderr: (s) => io.err(s), dataDir });
}

export async function runSessionsCommand(args: string[], io: SessionsCommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: SESSIONS_OPTIONS });
  } catch (err) {
    const message = (err as Error).message;
    return usage(
      io,
      message.split("\n")[0].split(". ")[0],
      flagSuggestion(message, SESSIONS_OPTIONS),
    );
  }
  const { values: v, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (v.help || sub === undefined) {
    io.stdout(SESSIONS_HELP);
    return v.help ? EXIT.ok : EXIT.usage;
  }
  const allowed: Record<string, string[]> = {
    list: ["json", "limit", "all"],
    show: ["json"],
    export: ["format"],
    rm: [],
    search: ["json", "limit"],
    reindex: [],
  };
  if (!(sub in allowed)) {
    return usage(io, `unknown command "${sub}"`, didYouMean(sub, Object.keys(allowed)));
  }
  const extra = Object.keys(v).filter((k) => !allowed[sub].includes(k));
  if (extra.length > 0) return usage(io, `\`${sub}\` does not take --${extra[0]}`);
  let limit: number | undefined;
  if (v.limit !== undefined) {
    limit = Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1) {
      return usage(io, `--limit takes a positive integer, got "${v.limit}"`);
    }
  }
  const needsId = ["show", "export", "rm"].includes(sub);
  if (needsId && rest.length !== 1) return usage(io, `\`${sub}\` takes one session ID`);
  if (sub === "search" && rest.length === 0) return usage(io, "`search` needs a QUERY");
  if ((sub === "list" || sub === "reindex") && rest.length > 0) {
    return usage(io, `\`${sub}\` takes no arguments`);
  }
  const format = v.format ?? "jsonl";
  if (format !== "jsonl" && format !== "markdown") {
    return usage(io, `--format is jsonl or markdown, got "${format}"`);
  }

  // Looking at sessions never creates a data dir where there is none.
  const store = await openSessionStore(io.dataDir, {
    existingOnly: true,
    warn: (m) => io.stderr(`warning: ${m}\n`),
  });
  try {
    switch (sub) {
      case "list":
        return list(io, store.list({ limit, includeChildren: v.all === true }), v.json === true);
      case "show":
        return show(io, store.resolve(rest[0]), await store.read(rest[0]), v.json === true);
      case "export":
        io.stdout(exportSession(await store.read(rest[0]), format));
        return EXIT.ok;
      case "rm": {
        const s = store.resolve(rest[0]);
        await store.remove(s.id);
        io.stdout(`removed ${s.short_id}${s.title ? ` (${s.title})` : ""}\n`);
        return EXIT.ok;
      }
      case "search":
        return search(io, store, rest.join(" "), limit, v.json === true);
      default: {
        const n = await store.reindex();
        io.stdout(`indexed ${n} session${n === 1 ? "" : "s"}\n`);
        return EXIT.ok;
      }
    }
  } finally {
    store.close();
  }
}

function usage(io: SessionsCommandIo, why: string, guess = ""): number {
  const hint = guess ? `${guess} ` : "";
  io.stderr(`mopac sessions: ${why}\nhint: ${hint}run \`mopac sessions --help\` for usage\n`);
  return EXIT.usage;
}

function list(io: SessionsCommandIo, sessions: SessionSummary[], json: boolean): number {
  if (json) {
    io.stdout(JSON.stringify(sessions) + "\n");
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    io.stderr("no sessions yet\n");
    return EXIT.ok;
  }
  const rows = sessions.map((s) => [
    s.short_id,
    s.status ? `${s.status}${s.exit_code !== undefined ? ` (${s.exit_code})` : ""}` : "-",
    time(s.updated_at),
    String(s.message_count),
    `${count(s.input_tokens)}/${count(s.output_tokens)}`,
    `$${s.cost_usd.toFixed(4)}`,
    (s.parent_id ? "↳ " : "") + (s.title ?? "(untitled)"),
  ]);
  const head = ["ID", "STATUS", "UPDATED (UTC)", "MSGS", "TOKENS IN/OUT", "COST", "TITLE"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((
      c,
      i,
    ) => (i === r.length - 1 ? c : i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ");
  io.stdout([head, ...rows].map(line).join("\n") + "\n");
  return EXIT.ok;
}

function show(
  io: SessionsCommandIo,
  s: SessionSummary,
  loaded: LoadedSession,
  json: boolean,
): number {
  if (json) {
    io.stdout(JSON.stringify({ session: s, ...loaded }) + "\n");
    return EXIT.ok;
  }
  const out = [
    describeSession(s),
    `cwd: ${s.cwd}${s.parent_id ? `   parent: ${s.parent_id}` : ""}` +
    (loaded.header.forked_from ? `   forked from: ${loaded.header.forked_from}` : ""),
    `created ${time(s.created_at)} UTC, ${s.message_count} messages, tokens in ${s.input_tokens} ` +
    `(cached ${s.cached_input_tokens}) out ${s.output_tokens}, $${s.cost_usd.toFixed(4)}` +
    (s.model ? `, ${s.model}` : ""),
  ];
  for (const m of loaded.messages) out.push("", ...renderMessage(m));
  io.stdout(out.join("\n") + "\n");
  return EXIT.ok;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function renderMessage(m: Message): string[] {
  const lines = [`[${m.role}]${m.model ? ` ${m.model}` : ""}`];
  for (const p of m.parts) {
    if (p.type === "text" && p.text.trim()) lines.push(p.text);
    else if (p.type === "reasoning" && p.text.trim()) lines.push(`(thinking) ${oneLine(p.text)}`);
    else if (p.type === "tool_call") lines.push(`→ ${p.name} ${oneLine(p.input)}`);
    else if (p.type === "tool_result") {
      const flag = p.denied ? " (denied)" : p.is_error ? " (error)" : "";
      lines.push(`← ${p.name}${flag}: ${oneLine(p.content)}`);
    } else if (p.type === "image") lines.push(`[image ${p.mime_type}]`);
    else if (p.type === "finish" && p.reason !== "stop" && p.reason !== "tool_calls") {
      lines.push(`(ended: ${p.reason}${p.message ? `: ${p.message}` : ""})`);
    }
  }
  return lines;
}

/** JSONL export: a clean session file (header, latest messages, merged meta, changes). */
function exportSession(s: LoadedSession, format: string): string {
  if (format === "markdown") return sessionToMarkdown(s);
  const records: unknown[] = [
    s.header,
    ...s.messages.map((message) => ({ type: "message", message })),
  ];
  const { at, ...meta } = s.meta;
  if (Object.keys(meta).length > 0) records.push({ type: "meta", at: at ?? s.updated_at, ...meta });
  for (const denial of s.denials) records.push({ type: "meta", at: s.updated_at, denial });
  records.push(...s.changes);
  return records.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

function search(
  io: SessionsCommandIo,
  store: SessionStore,
  query: string,
  limit: number | undefined,
  json: boolean,
): number {
  const hits = store.search(query, limit ?? 20);
  if (json) io.stdout(JSON.stringify(hits) + "\n");
  else if (hits.length === 0) io.stderr(`no messages match "${query}"\n`);
  else {
    io.stdout(
      hits.map((h) =>
        `${h.short_id}  [${h.role}]  ${oneLine(h.snippet)}  — ${h.title ?? "(untitled)"}`
      )
        .join("\n") + "\n",
    );
  }
  return EXIT.ok;
}
