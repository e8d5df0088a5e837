import assert from "node:assert/strict";
import { loadOnce, madeOnce } from "../../src/util/load_once.ts";

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

Deno.test("madeOnce: nothing is made before the first call; every call gets the one value", () => {
  let made = 0;
  const get = madeOnce(() => ({ n: ++made }));
  assert.equal(made, 0);
  const first = get();
  assert.equal(get(), first);
  assert.equal(made, 1);
});
