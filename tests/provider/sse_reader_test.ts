import assert from "node:assert/strict";
import { type SseEvent, SseReader } from "../../src/provider/sse_reader.ts";

const encoder = new TextEncoder();

/** The events of `text` fed in the given pieces (byte cuts anywhere, UTF-8 included). */
function read(text: string, cut: number[] = []): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = new SseReader((e) => events.push(e));
  const bytes = encoder.encode(text);
  let at = 0;
  for (const end of [...cut, bytes.length]) {
    reader.push(bytes.subarray(at, end));
    at = end;
  }
  reader.end();
  return events;
}

const data = (d: string, event?: string): SseEvent => ({ event, data: d });

Deno.test("events end at a blank line; data lines join with newlines; one space dropped", () => {
  assert.deepEqual(read('data: {"a":1}\n\ndata:x\ndata:  y\n\n'), [
    data('{"a":1}'),
    data("x\n y"),
  ]);
});

Deno.test("LF, CRLF and lone CR end lines, also when a read ends between CR and LF", () => {
  const text = "data: a\r\n\r\ndata: b\r\rdata: c\n\n";
  assert.deepEqual(read(text), [data("a"), data("b"), data("c")]);
  for (let cut = 1; cut < text.length; cut++) {
    assert.deepEqual(read(text, [cut]), [data("a"), data("b"), data("c")], `cut at ${cut}`);
  }
});

Deno.test("comments, unknown fields and events without data are not dispatched", () => {
  assert.deepEqual(read(": OPENROUTER PROCESSING\n\nid: 7\nretry: 10\n\nevent: ping\n\n"), []);
  assert.deepEqual(read("event: error\ndata: {}\n\n"), [data("{}", "error")]);
  // The name belongs to its own event only.
  assert.deepEqual(read("event: error\ndata: 1\n\ndata: 2\n\n"), [data("1", "error"), data("2")]);
});

Deno.test("the last event counts without its blank line, and without its newline", () => {
  assert.deepEqual(read("data: a\n\ndata: b\n"), [data("a"), data("b")]);
  assert.deepEqual(read("data: a\n\ndata: b"), [data("a"), data("b")]);
});

Deno.test("a multi-byte character and a long line split over many reads come out whole", () => {
  const long = "ü€😀".repeat(5000);
  const text = `data: ${long}\n\n`;
  const bytes = encoder.encode(text).length;
  const cuts = Array.from({ length: Math.floor(bytes / 7) }, (_, i) => (i + 1) * 7);
  assert.deepEqual(read(text, cuts), [data(long)]);
});
