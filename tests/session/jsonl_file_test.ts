import assert from "node:assert/strict";
import { join } from "node:path";
import { JsonlFile } from "../../src/session/jsonl_writer.ts";
import type { SessionRecord } from "../../src/session/types.ts";

Deno.test("appended lines are written as UTF-8 lines, ASCII or not, and counted in bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mopac-jsonl-" });
  try {
    const path = join(dir, "s.jsonl");
    const header = { type: "session", v: 1, id: "x", short_id: "x", created_at: 1, cwd: "/" };
    const file = JsonlFile.create(path, header as SessionRecord);
    const ascii = JSON.stringify({ text: "abcd".repeat(10_000) });
    const other = JSON.stringify({ text: "ünïcødé 😀 and more" });
    file.append([ascii]);
    file.append([ascii, other, ascii]);
    file.close();
    const bytes = await Deno.readFile(path);
    const expected = [JSON.stringify(header), ascii, ascii, other, ascii].join("\n") + "\n";
    assert.equal(new TextDecoder().decode(bytes), expected);
    assert.equal(file.size, bytes.length);
    // A file whose last line was torn gets its next line on a fresh line.
    await Deno.writeTextFile(path, '{"torn', { append: true });
    const size = (await Deno.stat(path)).size;
    const reopened = JsonlFile.openAppend(path, size, false);
    reopened.append([other]);
    reopened.close();
    assert.ok((await Deno.readTextFile(path)).endsWith(`{"torn\n${other}\n`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
