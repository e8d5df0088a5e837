/**
 * The harshest split a network can make: every stream fixture served one byte at
 * a time (mid-line, mid-JSON, mid-UTF-8 character) gives the same turn.
 */
import assert from "node:assert/strict";
import { replay, stable, streamFixtures } from "./fixture_replay.ts";

Deno.test("every stream fixture served one byte at a time gives the same turn", async () => {
  for (const f of streamFixtures()) {
    const whole = stable(await replay(f), f.body);
    const split = stable(await replay(f, 1), f.body);
    assert.deepEqual(split, whole, `${f.name} split into single bytes`);
  }
});
