/**
 * Shape checks of session records. Reading uses them to tell a valid line from a
 * malformed one (wrong types, missing fields); writing uses them to refuse a message
 * the loop got wrong before it reaches the file. Unknown extra fields are kept, so a
 * newer mopac's files still load.
 */
import { FINISH_REASONS, type Message, type Part, ROLES } from "../domain/message.ts";
import { TODO_STATUSES } from "../domain/tool_records.ts";
import type {
  FileChangeRecord,
  MessageRecord,
  SessionHeader,
  SessionMeta,
  SessionRecord,
} from "./types.ts";

type Obj = Record<string, unknown>;

const ROLE_SET = new Set<string>(ROLES);
const FINISH_REASON_SET = new Set<string>(FINISH_REASONS);
const TODO_STATUS_SET = new Set<string>(TODO_STATUSES);

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const opt = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const isStrMap = (v: unknown, check: (x: unknown) => boolean) =>
  isObj(v) && Object.values(v).every(check);

function isImage(p: Obj): boolean {
  return p.type === "image" && isStr(p.mime_type) && isStr(p.data);
}

/** Why a part is not valid, or undefined when it is. */
function partProblem(p: unknown): string | undefined {
  if (!isObj(p)) return "part is not an object";
  switch (p.type) {
    case "text":
      return isStr(p.text) ? undefined : "text part without a string `text`";
    case "reasoning":
      return isStr(p.text) && opt(p.details, Array.isArray)
        ? undefined
        : "reasoning part without a string `text`";
    case "tool_call":
      return isStr(p.id) && isStr(p.name) && isStr(p.input)
        ? undefined
        : "tool_call part needs string id, name and input";
    case "tool_result":
      return isStr(p.tool_call_id) && isStr(p.name) && isStr(p.content) &&
          typeof p.is_error === "boolean" && opt(p.denied, (d) => typeof d === "boolean") &&
          opt(p.images, (a) => Array.isArray(a) && a.every((i) => isObj(i) && isImage(i)))
        ? undefined
        : "tool_result part needs tool_call_id, name, content and is_error";
    case "image":
      return isImage(p) ? undefined : "image part needs mime_type and data";
    case "finish":
      return FINISH_REASON_SET.has(p.reason as string) && isNum(p.at) && opt(p.message, isStr)
        ? undefined
        : "finish part needs a known reason and a numeric `at`";
    default:
      return `unknown part type ${JSON.stringify(p.type)}`;
  }
}

function isUsage(u: unknown): boolean {
  return isObj(u) && isNum(u.input_tokens) && isNum(u.output_tokens) &&
    isNum(u.cached_input_tokens) && opt(u.reasoning_tokens, isNum) &&
    opt(u.estimated, (e) => typeof e === "boolean");
}

/** Why a message is not valid, or undefined when it is. */
export function messageProblem(m: unknown): string | undefined {
  if (!isObj(m)) return "message is not an object";
  if (!isStr(m.id) || m.id === "") return "message without an id";
  if (!ROLE_SET.has(m.role as string)) {
    return `message ${m.id}: unknown role ${JSON.stringify(m.role)}`;
  }
  if (!Array.isArray(m.parts)) return `message ${m.id}: parts is not an array`;
  for (const p of m.parts) {
    const problem = partProblem(p);
    if (problem) return `message ${m.id}: ${problem}`;
  }
  if (!isNum(m.created_at) || !isNum(m.updated_at)) {
    return `message ${m.id}: created_at and updated_at must be numbers`;
  }
  if (!opt(m.finished_at, isNum) || !opt(m.model, isStr) || !opt(m.usage, isUsage)) {
    return `message ${m.id}: bad finished_at, model or usage`;
  }
  if (!opt(m.cost_usd, isNum)) return `message ${m.id}: cost_usd must be a number`;
  return undefined;
}

/** Where the finish part must be for a message to be written (the loop's contract). */
export function finishProblem(m: Message): string | undefined {
  const finishes = m.parts.filter((p) => p.type === "finish").length;
  if (finishes > 1) return `message ${m.id}: more than one finish part`;
  if (finishes === 1 && m.parts.at(-1)?.type !== "finish") {
    return `message ${m.id}: the finish part must be the last part`;
  }
  if (finishes === 0 && m.finished_at !== undefined) {
    return `message ${m.id}: finished_at is set only by a finish part`;
  }
  return undefined;
}

/** `finished_at` follows the finish part, whatever the record said. */
export function syncFinishedAt(m: Message): Message {
  const finish = m.parts.findLast((p: Part) => p.type === "finish");
  const at = finish?.type === "finish" ? finish.at : undefined;
  if (m.finished_at === at) return m;
  const copy = { ...m };
  if (at === undefined) delete copy.finished_at;
  else copy.finished_at = at;
  return copy;
}

function isHeader(r: Obj): r is Obj & SessionHeader {
  return isNum(r.v) && isStr(r.id) && r.id !== "" && isStr(r.short_id) && isNum(r.created_at) &&
    isStr(r.cwd) && opt(r.parent_id, isStr) && opt(r.forked_from, isStr) && opt(r.title, isStr);
}

function isMeta(r: Obj): r is Obj & SessionMeta {
  return isNum(r.at) && opt(r.title, isStr) && opt(r.model, isStr) &&
    opt(r.summary_message_id, isStr) &&
    opt(r.todos, (t) =>
      Array.isArray(t) &&
      t.every((i) => isObj(i) && isStr(i.content) && TODO_STATUS_SET.has(i.status as string))) &&
    opt(r.viewed, (v) => isStrMap(v, isNum)) &&
    opt(r.shell, (s) => isObj(s) && isStr(s.cwd) && isStrMap(s.env, isStr)) &&
    opt(r.usage, isUsage) && opt(r.cost_usd, isNum) &&
    opt(
      r.denial,
      (d) =>
        isObj(d) &&
        ["tool", "tool_call_id", "input_summary", "rule", "reason"].every((k) => isStr(d[k])),
    ) &&
    opt(r.run_inputs, (i) => isObj(i) && opt(i.prompt_file, isStr) && opt(i.system_prompt, isObj));
}

function isFileChange(r: Obj): r is Obj & FileChangeRecord {
  const c = r.change;
  const strOrNull = (v: unknown) => v === null || isStr(v);
  return isNum(r.at) && opt(r.message_id, isStr) && isObj(c) && isStr(c.path) &&
    strOrNull(c.before) && strOrNull(c.after);
}

/** A parsed JSON value as a record, or undefined when it is not a valid one. */
export function asRecord(value: unknown): SessionRecord | undefined {
  if (!isObj(value)) return undefined;
  switch (value.type) {
    case "session":
      return isHeader(value) ? value : undefined;
    case "meta":
      return isMeta(value) ? value : undefined;
    case "file_change":
      return isFileChange(value) ? value : undefined;
    case "message": {
      if (messageProblem(value.message) !== undefined) return undefined;
      const message = syncFinishedAt(value.message as Message);
      return { ...value, message } as MessageRecord;
    }
    default:
      return undefined;
  }
}
