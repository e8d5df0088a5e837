/**
 * Session store figures (printed, not asserted):
 * - load + repair of a 10,000-message session (target ≤ 150 ms);
 * - `sessions list` over 5,000 sessions (target ≤ 100 ms);
 * - bytes written to the session file per streamed token.
 * Run: deno run --allow-all tests/bench/session_bench.ts [--runs 7]
 * summary_bench.ts takes the first two figures from `loadFigures` and `listFigures`.
 */
import { join } from "node:path";
import { openSessionStore, repairForRequest } from "../../src/session/mod.ts";
import { newSessionId, shortIdOf } from "../../src/session/ids.ts";
import { parseSession } from "../../src/session/reader.ts";
import type { Message } from "../../src/domain/message.ts";
import { runsFrom } from "./_runs.ts";

/** Times each figure is measured (the median is printed); `--runs` when run as a benchmark. */
let RUNS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `word${(i * 31 + seed) % 997}`).join(" ");

/** A realistic agent session: user, assistant with a tool call, tool result, … */
function sessionLines(id: string, count: number): string {
  const t0 = Date.now();
  const lines = [JSON.stringify({
    type: "session",
    v: 1,
    id,
    short_id: shortIdOf(id),
    created_at: t0,
    cwd: "/repo",
  })];
  for (let i = 0; i < count; i++) {
    const at = t0 + i;
    const kind = i % 4;
    let m: Message;
    if (kind === 0) {
      m = {
        id: `m${i}`,
        role: "user",
        parts: [{ type: "text", text: words(30, i) }],
        created_at: at,
        updated_at: at,
      };
    } else if (kind === 1 || kind === 3) {
      const parts: Message["parts"] = [{ type: "text", text: words(60, i) }];
      if (kind === 1) {
        parts.push({
          type: "tool_call",
          id: `c${i}`,
          name: "view",
          input: `{"file_path":"/repo/f${i}.ts"}`,
        });
      }
      parts.push({ type: "finish", reason: kind === 1 ? "tool_calls" : "stop", at });
      m = {
        id: `m${i}`,
        role: "assistant",
        parts,
        created_at: at,
        updated_at: at,
        finished_at: at,
        model: "litellm/gpt-4o",
        usage: { input_tokens: 1000 + i, output_tokens: 80, cached_input_tokens: 500 },
        cost_usd: 0.001,
      };
    } else {
      m = {
        id: `m${i}`,
        role: "tool",
        parts: [{
          type: "tool_result",
          tool_call_id: `c${i - 1}`,
          name: "view",
          content: words(120, i),
          is_error: false,
        }],
        created_at: at,
        updated_at: at,
      };
    }
    lines.push(JSON.stringify({ type: "message", message: m }));
  }
  return lines.join("\n") + "\n";
}

/** Open + load + repair of a 10,000-message session, and its parts, RUNS times each (ms). */
export async function loadFigures(dir: string) {
  const id = newSessionId();
  await Deno.mkdir(join(dir, "sessions"), { recursive: true });
  const text = sessionLines(id, 10_000);
  const path = join(dir, "sessions", `${id}.jsonl`);
  await Deno.writeTextFile(path, text);
  const store = await openSessionStore(dir);
  const bytes = await Deno.readFile(path);
  const parse: number[] = [], repair: number[] = [], full: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let msgs: Message[] = [];
    parse.push(
      await time(() => {
        const r = parseSession(bytes, path);
        msgs = r.state.snapshot(r.header).messages;
      }),
    );
    repair.push(await time(() => repairForRequest(msgs)));
    full.push(
      await time(async () => {
        const h = await store.open(id);
        repairForRequest((await h.load()).messages);
        await h.close();
      }),
    );
  }
  store.close();
  return { bytes: bytes.length, full, parse, repair };
}

async function benchLoad(dir: string) {
  const { bytes, full, parse, repair } = await loadFigures(dir);
  console.log(`10,000-message session (${(bytes / 1e6).toFixed(1)} MB):`);
  console.log(
    `  open (lock + read + index check) + load + repair: median ${
      fmt(median(full))
    }  (target ≤ 150 ms)`,
  );
  console.log(
    `  parse + snapshot alone: ${fmt(median(parse))}, repair alone: ${fmt(median(repair))}`,
  );
}

/** `sessions list` over 5,000 sessions: the first index build, then RUNS times each (ms). */
export async function listFigures(dir: string) {
  const sessions = join(dir, "sessions");
  await Deno.mkdir(sessions, { recursive: true });
  for (let i = 0; i < 5000; i++) {
    const id = newSessionId(Date.now() - 5000 + i);
    Deno.writeTextFileSync(join(sessions, `${id}.jsonl`), sessionLines(id, 6));
  }
  const build = await time(async () => (await openSessionStore(dir)).close());
  const cold: number[] = [], listOnly: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    cold.push(
      await time(async () => {
        const s = await openSessionStore(dir);
        s.list();
        s.close();
      }),
    );
    const s = await openSessionStore(dir);
    listOnly.push(await time(() => s.list()));
    s.close();
  }
  return { build, cold, listOnly };
}

async function benchList(dir: string) {
  const { build, cold, listOnly } = await listFigures(dir);
  console.log("5,000 sessions:");
  console.log(`  first index build from the files: ${fmt(build)}`);
  console.log(
    `  \`sessions list\` (open store + catch-up check + list): median ${
      fmt(median(cold))
    }  (target ≤ 100 ms)`,
  );
  console.log(`  list() on an open store: median ${fmt(median(listOnly))}`);
}

async function benchStream(dir: string, tokens: number, intervalMs: number, debounceMs: number) {
  const store = await openSessionStore(dir, { debounceMs });
  const h = await store.create({ cwd: "/" });
  const path = join(dir, "sessions", `${h.id}.jsonl`);
  const before = (await Deno.stat(path)).size;
  const now = Date.now();
  const m: Message = {
    id: "a",
    role: "assistant",
    parts: [{ type: "text", text: "" }],
    created_at: now,
    updated_at: now,
  };
  for (let i = 0; i < tokens; i++) {
    (m.parts[0] as { text: string }).text += ` tok${i % 10}`;
    m.updated_at = Date.now();
    void h.saveMessage(m);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  m.parts.push({ type: "finish", reason: "stop", at: Date.now() });
  m.finished_at = (m.parts[1] as { at: number }).at;
  await h.saveMessage(m, { flush: true });
  await h.close();
  const written = (await Deno.stat(path)).size - before;
  const final = JSON.stringify({ type: "message", message: m }).length + 1;
  const snapshots = (await Deno.readTextFile(path)).trimEnd().split("\n").length - 1;
  store.close();
  console.log(
    `  ${tokens} tokens at ${1000 / intervalMs}/s (debounce ${debounceMs} ms): ` +
      `${(written / tokens).toFixed(0)} bytes/token in ${snapshots} snapshots ` +
      `(the final record alone: ${(final / tokens).toFixed(0)} bytes/token)`,
  );
}

if (import.meta.main) {
  RUNS = runsFrom(Deno.args, "session_bench", RUNS);
  const root = await Deno.makeTempDir({ prefix: "mopac-bench-" });
  try {
    await benchLoad(join(root, "load"));
    await benchList(join(root, "list"));
    console.log("Streaming (file bytes per token, text only; ~5 bytes of JSON per token):");
    await benchStream(join(root, "s1"), 300, 20, 50);
    await benchStream(join(root, "s2"), 2000, 2, 50);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
