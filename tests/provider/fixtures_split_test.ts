/**
 * Real networks split a response anywhere: mid-line, mid-JSON, mid-UTF-8
 * character. Every stream fixture served in 7- and 13-byte pieces must give
 * exactly the turn the whole body gives; so must the same body with CRLF line
 * endings (allowed by the SSE spec, absent from the recordings).
 */
import assert from "node:assert/strict";
import { replay, stable, streamFixtures } from "./fixture_replay.ts";

// The 1-byte split lives in fixtures_one_byte_test.ts so the two run in parallel.
for (const size of [7, 13]) {
  Deno.test(`every stream fixture split into ${size}-byte pieces gives the same turn`, async () => {
    for (const f of streamFixtures()) {
      const whole = stable(await replay(f), f.body);
      const split = stable(await replay(f, size), f.body);
      assert.deepEqual(split, whole, `${f.name} split at ${size} bytes`);
    }
  });
}

Deno.test("every stream fixture with CRLF line endings gives the same turn", async () => {
  for (const f of streamFixtures()) {
    const whole = stable(await replay(f), f.body);
    const crlf = stable(await replay({ ...f, body: f.body.replaceAll("\n", "\r\n") }, 7), f.body);
    assert.deepEqual(crlf, whole, `${f.name} with CRLF`);
  }
});
