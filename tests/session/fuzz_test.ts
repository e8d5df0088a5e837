/**
 * Fuzzed session files: random truncation, garbage lines, duplicated records and
 * records with wrong types. Loading must never throw, and the result must equal an
 * independent fold of exactly the valid lines that are left (every valid record survives).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Message, Part } from "../../src/domain/message.ts";
import { parseSession } from "../../src/session/reader.ts";
import { openSessionStore } from "../../src/session/mod.ts";
import { rng, withDataDir } from "./_helpers.ts";

type Rec = Record<string, unknown>;
type Line = { text: string; valid: boolean };

const ID = "01900000-0000-7000-8000-000000000001";
const WORDS = ["ls", 'a "quoted" word', "naïve ünïcode ✓", "line\nbreak", "{json}", "", "🦀"];

function gen(r: () => number) {
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)];
  const str = () => pick(WORDS) + Math.floor(r() * 1000);
  const part = (): Part => {
    const at = 1_700_000_000_000 + Math.floor(r() * 1e6);
    return pick<() => Part>([
      () => ({ type: "text", text: str() }),
      () => ({ type: "reasoning", text: str() }),
      () => ({ type: "tool_call", id: `c${Math.floor(r() * 50)}`, name: "bash", input: "{}" }),
      () => ({
        type: "tool_result",
        tool_call_id: `c${Math.floor(r() * 50)}`,
        name: "bash",
        content: str(),
        is_error: r() < 0.3,
      }),
      () => ({ type: "image", mime_type: "image/png", data: "aGVsbG8=" }),
      () => ({ type: "finish", reason: "stop", at }),
    ])();
  };
  const message = (id: string): Message => {
    const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, part).filter((p) =>
      p.type !== "finish"
    );
    const m: Message = {
      id,
      role: pick(["user", "assistant", "tool", "system"] as const),
      parts,
      created_at: 1_700_000_000_000 + Math.floor(r() * 1e6),
      updated_at: 1_700_000_000_000 + Math.floor(r() * 1e6),
    };
    if (r() < 0.4) {
      m.parts.push({ type: "finish", reason: "stop", at: 1_700_000_500_000 });
      m.finished_at = 1_700_000_500_000;
      m.usage = { input_tokens: 10, output_tokens: 2, cached_input_tokens: 0 };
      m.cost_usd = 0.5;
    }
    return m;
  };
  const records: Rec[] = [{
    type: "session",
    v: 1,
    id: ID,
    short_id: "abcd1234",
    created_at: 1_700_000_000_000,
    cwd: "/w",
  }];
  const n = 5 + Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const at = 1_700_000_000_000 + i;
    const choice = r();
    if (choice < 0.6) {
      records.push({ type: "message", message: message(`m${Math.floor(r() * 12)}`) });
    } else if (choice < 0.8) {
      records.push({
        type: "meta",
        at,
        title: str(),
        todos: [{ content: str(), status: "pending" }],
      });
    } else if (choice < 0.9) {
      records.push({
        type: "meta",
        at,
        viewed: { "/a": i },
        usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 },
      });
    } else {
      records.push({
        type: "file_change",
        at,
        change: { path: `/f${i}`, before: null, after: str() },
      });
    }
  }
  return records;
}

/** Breaks one field of a record so that it is no longer valid. */
function corrupt(rec: Rec, r: () => number): Rec {
  const c = structuredClone(rec) as Rec & { message?: Rec & { parts: Rec[] }; change?: Rec };
  const options: Array<() => void> = [() => (c.type = "unknown")];
  if (c.type === "message") {
    const m = c.message!;
    options.push(
      () => (m.role = 5),
      () => (m.parts = "x" as unknown as Rec[]),
      () => (m.created_at = "now"),
      () => (m.id = 7),
      () => (m.usage = { input_tokens: "1" }),
      () => (c.message = null as unknown as undefined),
      () => (m.parts = [{ type: "text", text: 5 }]),
      () => (m.parts = [{ type: "bogus" }]),
      () => (m.parts = [{ type: "finish", reason: "exploded", at: 1 }]),
      () => (m.parts = [{ type: "tool_result", tool_call_id: "c", content: "", is_error: "y" }]),
    );
  } else if (c.type === "meta") {
    options.push(
      () => (c.at = "x"),
      () => (c.title = 5),
      () => (c.todos = [{ content: 1 }]),
      () => (c.viewed = { a: "x" }),
    );
  } else if (c.type === "file_change") {
    options.push(
      () => (c.change = null as unknown as Rec),
      () => (c.change!.path = 5),
      () => (c.at = null),
    );
  } else if (c.type === "session") {
    options.push(() => (c.created_at = "x"), () => (c.id = 5), () => (c.cwd = null));
  }
  options[Math.floor(r() * options.length)]();
  return c;
}

function garbage(r: () => number, valid: string): string {
  const kind = Math.floor(r() * 6);
  if (kind === 0) {
    return Array.from({ length: 1 + Math.floor(r() * 40) }, () => {
      const b = Math.floor(r() * 255);
      return String.fromCharCode(b === 10 ? 11 : b);
    }).join("");
  }
  if (kind === 1) return valid.slice(0, Math.floor(r() * (valid.length - 1)));
  return ["[1,2,3]", "null", '"str"', "{}", '{"type":"message"}', "{{{"][kind];
}

/** The reference fold: first valid header, latest message per id, merged meta, all changes. */
function fold(recs: Rec[]) {
  let header: Rec | undefined;
  const messages = new Map<string, unknown>();
  let meta: Rec = {};
  const changes: Rec[] = [];
  for (const rec of recs) {
    if (rec.type === "session") header ??= rec;
    else if (rec.type === "message") messages.set((rec.message as Message).id, rec.message);
    else if (rec.type === "meta") {
      const { type: _t, denial: _d, ...rest } = rec;
      meta = { ...meta, ...rest };
    } else changes.push(rec);
  }
  return { header, messages: [...messages.values()], meta, changes };
}

function mutate(seed: number): { bytes: Uint8Array; expected: Rec[] } {
  const r = rng(seed);
  const records = gen(r);
  const lines: Array<Line & { rec?: Rec }> = records.map((rec) => ({
    text: JSON.stringify(rec),
    valid: true,
    rec,
  }));
  const ops = Math.floor(r() * 8);
  for (let k = 0; k < ops; k++) {
    const at = Math.floor(r() * lines.length);
    const src = lines[Math.floor(r() * lines.length)];
    const what = r();
    if (what < 0.35 && src.valid) lines.splice(at, 0, { ...src }); // duplicate
    else if (what < 0.7) lines.splice(at, 0, { text: garbage(r, src.text), valid: false });
    else if (src.rec) {
      const i = lines.indexOf(src);
      lines[i] = { text: JSON.stringify(corrupt(src.rec, r)), valid: false };
    }
  }
  let text = lines.map((l) => l.text + "\n").join("");
  let kept = lines;
  if (r() < 0.6) {
    // Truncate at a random byte; a last line cut exactly at its end stays valid.
    const cut = Math.floor(r() * text.length);
    text = text.slice(0, cut);
    let pos = 0;
    kept = [];
    for (const l of lines) {
      const end = pos + l.text.length;
      if (end <= cut) kept.push(l);
      pos = end + 1;
      if (pos > cut) break;
    }
  }
  return {
    bytes: new TextEncoder().encode(text),
    expected: kept.filter((l) => l.valid && l.rec).map((l) => l.rec!),
  };
}

Deno.test("fuzz: 400 mangled files load without throwing and keep every valid record", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const { bytes, expected } = mutate(seed);
    const want = fold(expected);
    let warned = 0;
    const got = parseSession(bytes, `${ID}.jsonl`, () => warned++);
    const loaded = got.state.snapshot(got.header);
    const where = `seed ${seed}`;
    assert.deepEqual(loaded.messages, want.messages, where);
    assert.deepEqual(loaded.changes, want.changes, where);
    assert.deepEqual({ ...loaded.meta }, want.meta, where);
    if (want.header) assert.deepEqual(loaded.header, want.header, where);
    else assert.equal(loaded.header.id, ID, where);
    assert.ok(warned <= 2, `${where}: reported once (plus a missing header)`);
  }
});

Deno.test("fuzz through the store: mangled files index, list and open without errors", async () => {
  await withDataDir(async (dir) => {
    await Deno.mkdir(join(dir, "sessions"));
    const ids: string[] = [];
    for (let seed = 1000; seed < 1040; seed++) {
      const id = `01900000-0000-7000-8000-${String(seed).padStart(12, "0")}`;
      ids.push(id);
      await Deno.writeFile(join(dir, "sessions", `${id}.jsonl`), mutate(seed).bytes);
    }
    const store = await openSessionStore(dir);
    assert.equal(store.list({ includeChildren: true }).length, ids.length);
    for (const id of ids) {
      const h = await store.open(id);
      const before = await h.load();
      const added: Message = {
        id: "new",
        role: "user",
        parts: [{ type: "text", text: "appended" }],
        created_at: 1,
        updated_at: 1,
      };
      await h.saveMessage(added, { flush: true });
      await h.close();
      // Appended after whatever the file ended with (a torn line included), nothing lost.
      const after = await store.read(id);
      assert.deepEqual(after.messages, [...before.messages, added], id);
    }
    store.close();
  });
});
