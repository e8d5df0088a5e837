/**
 * Loads the recorded provider responses in tests/fixtures/provider-streams as
 * {status, headers, body}, following the replay rules of that folder's README.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES_DIR = fileURLToPath(
  new URL("../fixtures/provider-streams/", import.meta.url),
);

export interface RecordedResponse {
  /** Path relative to FIXTURES_DIR, e.g. `openai/gpt-4o-text.sse`. */
  name: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const DROPPED_HEADERS = new Set(["content-length", "transfer-encoding", "content-encoding"]);
/** Status of `.body.json` files, which store no status (PROVENANCE.md). */
const BODY_ONLY_STATUS: Record<string, number> = {
  "openai/error-400-unsupported-parameter.body.json": 400,
  "gemini/native-api-error-429-retry-info.body.json": 429,
};

/** Every fixture file, relative to FIXTURES_DIR, sorted. */
export function listFixtures(): string[] {
  const out: string[] = [];
  for (const dir of Deno.readDirSync(FIXTURES_DIR)) {
    if (!dir.isDirectory) continue;
    for (const f of Deno.readDirSync(join(FIXTURES_DIR, dir.name))) {
      if (f.isFile) out.push(`${dir.name}/${f.name}`);
    }
  }
  return out.sort();
}

/** True for fixtures whose recorded status is not 2xx or whose stream carries an error. */
export function isErrorFixture(name: string): boolean {
  return /(^|\/)error-|error-event|error-mid-stream/.test(name);
}

export function loadFixture(name: string): RecordedResponse {
  const text = Deno.readTextFileSync(join(FIXTURES_DIR, name));
  const sse = { "content-type": "text/event-stream" };
  if (name.endsWith(".sse")) return { name, status: 200, headers: sse, body: text };
  if (name.endsWith(".chunks.jsonl")) {
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const body = lines.map((l) => `data: ${l}\n\n`).join("") + "data: [DONE]\n\n";
    return { name, status: 200, headers: sse, body };
  }
  if (name.endsWith(".http")) return parseHttp(name, text);
  if (name.endsWith(".body.json")) {
    const status = BODY_ONLY_STATUS[name] ?? 400;
    return { name, status, headers: { "content-type": "application/json" }, body: text };
  }
  if (name.endsWith(".json")) {
    const env = JSON.parse(text) as {
      status: number;
      headers?: Record<string, string | string[]>;
      body_raw?: string;
      body?: unknown;
    };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(env.headers ?? {})) {
      if (!DROPPED_HEADERS.has(k.toLowerCase())) {
        headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
      }
    }
    const body = env.body_raw ?? JSON.stringify(env.body);
    return { name, status: env.status, headers, body };
  }
  throw new Error(`unknown fixture format: ${name}`);
}

function parseHttp(name: string, text: string): RecordedResponse {
  const split = text.indexOf("\r\n\r\n") >= 0 ? "\r\n\r\n" : "\n\n";
  const at = text.indexOf(split);
  const head = text.slice(0, at).split(/\r?\n/);
  const body = text.slice(at + split.length);
  const status = Number(head[0].split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(":");
    const key = line.slice(0, i).trim().toLowerCase();
    if (i > 0 && !DROPPED_HEADERS.has(key)) headers[key] = line.slice(i + 1).trim();
  }
  return { name, status, headers, body };
}
