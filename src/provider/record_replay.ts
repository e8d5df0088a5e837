/**
 * Cassettes: `--record FILE` appends one JSONL entry per attempt (request body
 * with secrets removed, URL path, raw response status/headers/SSE text);
 * `--replay FILE` is a fetch that serves those entries in order without any
 * network and fails clearly when the run asks for more, or for another model,
 * tool set or prompt, than was recorded. Failed attempts are recorded too, so a replay
 * goes through the same retries as the recorded run.
 */
import { ProviderError } from "./errors.ts";
import { UsageError } from "../util/errors.ts";
import type { Exchange } from "./attempt_fetch.ts";
import { CREDENTIAL_FIELD, REDACTED, type Redactor } from "../secrets/redactor.ts";

export interface CassetteEntry {
  request: { path: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: string };
}

/** Dropped on record: they describe the original transfer, not this body. */
const TRANSFER_HEADERS = /^(content-length|content-encoding|transfer-encoding)$/i;

export class Recorder {
  constructor(private readonly path: string, private readonly secrets: Redactor) {
    // A cassette that cannot be written fails the run before the model acts, not after.
    try {
      Deno.writeTextFileSync(path, "", { append: true });
    } catch (e) {
      throw new UsageError(
        `cannot write the cassette ${path}: ${e instanceof Error ? e.message : e}`,
        {
          hint: "--record needs a file in an existing folder",
        },
      );
    }
  }

  async write(ex: Exchange): Promise<void> {
    let body: unknown = ex.requestBody;
    try {
      body = JSON.parse(ex.requestBody);
    } catch {
      // Not JSON: kept as text, still scrubbed below.
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.headers)) {
      if (!CREDENTIAL_FIELD.test(k) && !TRANSFER_HEADERS.test(k)) headers[k] = this.hide(v);
    }
    const entry: CassetteEntry = {
      request: { path: urlPath(ex.url), body: this.scrub(body) },
      response: { status: ex.status, headers, body: this.hide(ex.text()) },
    };
    try {
      await Deno.writeTextFile(this.path, JSON.stringify(entry) + "\n", { append: true });
    } catch (e) {
      throw new ProviderError("bad_request", `cannot write the cassette ${this.path}: ${e}`, {
        retryable: false,
        cause: e,
      });
    }
  }

  private scrub(v: unknown): unknown {
    if (typeof v === "string") return this.hide(v);
    if (Array.isArray(v)) return v.map((x) => this.scrub(x));
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, CREDENTIAL_FIELD.test(k) ? REDACTED : this.scrub(x)]),
      );
    }
    return v;
  }

  /** Removes every known secret value wherever it appears in a string. */
  private hide(s: string): string {
    return this.secrets.redact(s);
  }
}

/**
 * Where each cassette is in this process. Every provider of a run (large model,
 * small model, sub-agents) replays the same file, so they share one position.
 */
const cursors = new Map<string, { entries: Promise<CassetteEntry[]>; next: number }>();

/** A fetch that answers from a cassette and never touches the network. */
export function replayFetch(path: string): typeof fetch {
  return async (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let cursor = cursors.get(path);
    if (!cursor) {
      cursor = { entries: loadCassette(path), next: 0 };
      cursors.set(path, cursor);
    }
    const entries = await cursor.entries;
    // Read and advance with no await in between, so concurrent requests get distinct entries;
    // a refused request does not move the cassette on.
    const n = cursor.next;
    const wanted = describe(parseBody(init?.body));
    if (n >= entries.length) {
      throw replayError(
        `the cassette ${path} holds ${entries.length} request(s); the run asked for request #${
          n + 1
        } (${wanted.text}), which it lacks`,
      );
    }
    const entry = entries[n];
    const recorded = describe(entry.request.body);
    if (recorded.model !== wanted.model || recorded.tools !== wanted.tools) {
      throw replayError(
        `the cassette ${path} recorded request #${n + 1} for ${recorded.text}, ` +
          `but this run asks for ${wanted.text}`,
      );
    }
    if (recorded.prompt !== wanted.prompt) {
      throw replayError(
        `the cassette ${path} has no request for this prompt: request #${n + 1} was recorded ` +
          `for ${quote(recorded.prompt)}, this run asks for ${quote(wanted.prompt)}`,
      );
    }
    cursor.next = n + 1;
    return new Response(entry.response.body, {
      status: entry.response.status,
      headers: entry.response.headers,
    });
  };
}

async function loadCassette(path: string): Promise<CassetteEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw replayError(`cannot read the cassette ${path}: ${e instanceof Error ? e.message : e}`);
  }
  const out: CassetteEntry[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      const entry = JSON.parse(line) as CassetteEntry;
      if (typeof entry?.response?.status !== "number" || typeof entry.response.body !== "string") {
        throw new Error("no response status/body");
      }
      out.push(entry);
    } catch (e) {
      throw replayError(`the cassette ${path} is broken at line ${i + 1}: ${(e as Error).message}`);
    }
  });
  return out;
}

function replayError(message: string): ProviderError {
  return new ProviderError("bad_request", message, {
    retryable: false,
    hint: "record the run again with --record",
  });
}

function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

interface RequestShape {
  model: string;
  tools: string;
  /** The last user message of an agent request (one that offers tools); "" otherwise. */
  prompt: string;
  text: string;
}

/**
 * What a request must share with the recorded one. The prompt is compared only where
 * tools are offered: there the last user message is what the user (or a parent agent, or
 * a summary served from the cassette) wrote, while a summarizing request's transcript
 * carries tool output (paths, times) that differs from run to run.
 */
function describe(body: unknown): RequestShape {
  const b = (body ?? {}) as { model?: unknown; tools?: unknown; messages?: unknown };
  const model = typeof b.model === "string" ? b.model : "?";
  const names = Array.isArray(b.tools)
    ? b.tools.map((t) => (t as { function?: { name?: string } })?.function?.name ?? "?")
    : [];
  const tools = names.join(", ");
  const prompt = names.length > 0 ? lastUserText(b.messages) : "";
  return { model, tools, prompt, text: `model ${model} with tools [${tools}]` };
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const user = messages.findLast((m) => (m as { role?: unknown })?.role === "user") as
    | { content?: unknown }
    | undefined;
  const content = user?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p as { text?: unknown })?.text)
    .filter((t): t is string => typeof t === "string").join("\n");
}

function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);
}

function urlPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
