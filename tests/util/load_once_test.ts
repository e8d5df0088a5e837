import assert from "node:assert/strict";
import { loadOnce } from "../../src/util/load_once.ts";

Deno.test("loadOnce: callers share one load; a failed load is tried again by the next caller", async () => {
  let calls = 0;
  const load = loadOnce(() => {
    calls++;
    return calls === 1 ? Promise.reject(new Error("offline")) : Promise.resolve({ n: calls });
  });
  await assert.rejects(load(), /offline/);
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(a, b);
  assert.deepEqual(await load(), { n: 2 });
  assert.equal(calls, 2);
});
