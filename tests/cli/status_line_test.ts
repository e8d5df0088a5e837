// Escape codes are what these tests look for.
// deno-lint-ignore-file no-control-regex
/**
 * The status line on its own: what it says for each wait, that it is cut to the
 * terminal's width, that every other write clears it first, and that it is never drawn
 * over a line still being written.
 */
import assert from "node:assert/strict";
import { elapsed, StatusLine } from "../../src/cli/status_line.ts";
import { paint } from "../../src/cli/color.ts";

const CLEAR = "\r\x1b[2K";

function setup(columns = 80) {
  let now = 1_000_000;
  const written: string[] = [];
  const line = new StatusLine((t) => written.push(t), {
    paint: paint(false),
    now: () => now,
    columns: () => columns,
    intervalMs: 0,
  });
  return { line, written, advance: (ms: number) => now += ms, at: () => now };
}

Deno.test("status line: the model, a tool, a retry's countdown, then the model again", () => {
  const { line, advance, at } = setup();
  const model = { what: "model" as const, label: "p/m", since: at(), chars: 0 };
  assert.equal(line.describe(model), "waiting for p/m · 0s");
  advance(7_400);
  assert.equal(
    line.describe({ ...model, chars: 402 }),
    "waiting for p/m · 7s · ~101 tokens so far",
  );
  advance(60_000);
  assert.equal(line.describe(model), "waiting for p/m · 1m07s");
  const tool = { what: "tool" as const, name: "bash", detail: "sleep 5", since: at(), others: 0 };
  advance(3_000);
  assert.equal(line.describe(tool), "running bash · 3s · sleep 5");
  assert.equal(line.describe({ ...tool, others: 2, detail: "" }), "running bash (+2 more) · 3s");
  const retry = { attempt: 2, reason: "HTTP 503" };
  const waiting = { ...model, since: at() + 2_500, retry };
  assert.equal(line.describe(waiting), "p/m: attempt 2 in 3s (HTTP 503)");
  advance(4_000);
  assert.equal(line.describe(waiting), "waiting for p/m · 1s · attempt 2");
});

Deno.test("status line: drawn in place, cut to the width, cleared by other writes and at the end", () => {
  const { line, written, at } = setup(30);
  const io = line.wrap(
    { out: (t) => written.push(`OUT:${t}`), err: (t) => written.push(t) },
    false,
  );
  line.show({ what: "tool", name: "bash", detail: "x".repeat(100), since: at(), others: 0 });
  assert.equal(written.length, 1);
  assert.ok(written[0].startsWith(CLEAR), JSON.stringify(written[0]));
  assert.equal([...written[0].slice(CLEAR.length)].length, 29, "cut to one less than the width");
  assert.ok(written[0].endsWith("…"));
  io.err("a line\n");
  assert.deepEqual(written.slice(1), [CLEAR, "a line\n"]);
  io.out("piped stdout does not touch the terminal\n");
  line.refresh();
  assert.ok(written.at(-1)!.startsWith(CLEAR + "⠹ running bash"), JSON.stringify(written.at(-1)));
  line.close();
  assert.equal(written.at(-1), CLEAR);
  line.refresh();
  assert.equal(written.at(-1), CLEAR, "nothing drawn after close");
});

Deno.test("status line: never drawn while a line is open on the terminal", () => {
  const { line, written, at } = setup();
  const io = line.wrap({ out: (t) => written.push(t), err: (t) => written.push(t) }, true);
  io.out("The answer so f");
  line.show({ what: "model", label: "p/m", since: at(), chars: 15 });
  line.refresh();
  assert.deepEqual(written, ["The answer so f"], "the open line is left alone");
  io.out("ar.\n");
  line.refresh();
  assert.match(written.at(-1)!, /^\r\x1b\[2K\S waiting for p\/m/);
});

Deno.test("elapsed: whole seconds, minutes from 60 s, rounded up for a countdown", () => {
  assert.deepEqual(
    [elapsed(999), elapsed(59_999), elapsed(60_000), elapsed(3_725_000), elapsed(1, true)],
    ["0s", "59s", "1m00s", "62m05s", "1s"],
  );
});
